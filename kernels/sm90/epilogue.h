// The sm90 GEMM's epilogue: a consumer's accumulators to C (D, the kernel's transposed view of it), by one of four
// stores (sm90/codes.h): from registers, staged in shared memory and copied out by the threads (with swapped
// operands, where D is C itself, staged transposed), or staged in the 128B-swizzled layout and written by TMA (the
// whole tile, or a ring of two 64-column atoms).
#pragma once
#include <cuda/ptx>
#include <cuda/std/type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "sm90/args.h"
#include "sm90/primitives.h"

namespace tilewise::kernels::sm90 {

template <class Cfg>
using OutElem = cuda::std::conditional_t<Cfg::Fp16Out, __half, __nv_bfloat16>;
template <class Cfg>
using OutPair = cuda::std::conditional_t<Cfg::Fp16Out, __half2, __nv_bfloat162>;

template <class Cfg>
__device__ __forceinline__ OutPair<Cfg> to_out(float x, float y) {
  if constexpr (Cfg::Fp16Out) return __floats2half2_rn(x, y);
  else return __floats2bfloat162_rn(x, y);
}

// Two accumulators as the output type's pair, in the 32 bits a shared-memory store takes.
template <class Cfg>
__device__ __forceinline__ uint32_t out_bits(float x, float y) {
  const OutPair<Cfg> v = to_out<Cfg>(x, y);
  return *reinterpret_cast<const uint32_t*>(&v);
}

template <class Cfg>
__device__ __forceinline__ void store_direct(const float* acc, const Sm90GemmArgs& args, int row0, int col0) {
  using Pair = OutPair<Cfg>;
  using Elem = OutElem<Cfg>;
  Elem* c = static_cast<Elem*>(args.c);
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < Cfg::BlockM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + warp * 16 + lane / 4 + 8 * h, col = col0 + 8 * j + 2 * (lane % 4);
      if (row >= args.N) continue;
      const Pair v = to_out<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      if constexpr (Cfg::SwapAB) {  // D is C: a row is C's contiguous m, so the pair lands in two columns of C
        if (col < args.M) c[(long long)col * args.ldc + row] = v.x;
        if (col + 1 < args.M) c[(long long)(col + 1) * args.ldc + row] = v.y;
        continue;
      }
      Elem* p = c + (long long)row * args.ldc + col;
      if (col + 1 < args.M && args.ldc % 2 == 0) {
        *reinterpret_cast<Pair*>(p) = v;
      } else {
        if (col < args.M) p[0] = v.x;
        if (col + 1 < args.M) p[1] = v.y;
      }
    }
}

// Writes one 64-row accumulator block into `rows` (the staged store's buffer, kStagedRowBytes a row) as the output
// type.
template <class Cfg>
__device__ __forceinline__ void stage_rows(const float* acc, uint8_t* rows) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < Cfg::BlockM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4);
      store_shared_4_bytes(rows + row * Cfg::kStagedRowBytes + col * 2,
                           out_bits<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]));
    }
}

// Swapped operands: one 64-row accumulator block into `columns` (the consumer's staged buffer, kStagedColumnBytes a
// column of D) transposed, so each of D's columns, a contiguous run of C, lies contiguous; rows from row0.
template <class Cfg>
__device__ __forceinline__ void stage_columns(const float* acc, uint8_t* columns, int row0) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < Cfg::BlockM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4);
      const OutPair<Cfg> v = to_out<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      *reinterpret_cast<OutElem<Cfg>*>(columns + col * Cfg::kStagedColumnBytes + row * 2) = v.x;
      *reinterpret_cast<OutElem<Cfg>*>(columns + (col + 1) * Cfg::kStagedColumnBytes + row * 2) = v.y;
    }
}

// A consumer's staged lines to C, each a contiguous run of it: D's rows (kStagedRowBytes apart; C[row * ldc + col]),
// or with swapped operands D's columns (kStagedColumnBytes apart; C[col * ldc + row]). Consecutive threads take
// consecutive 16-byte pieces of a line, so each warp writes whole 128-byte lines where the tile is inside C. Pieces
// past C's edge, or a C whose lines are not 16-byte aligned, go element by element.
template <class Cfg>
__device__ __forceinline__ void copy_out(const uint8_t* staged, const Sm90GemmArgs& args, int row0, int col0,
                                         int consumer_thread) {
  using Elem = OutElem<Cfg>;
  constexpr bool kColumns = Cfg::SwapAB;
  constexpr int kLineBytes = kColumns ? Cfg::kStagedColumnBytes : Cfg::kStagedRowBytes;
  constexpr int kLines = kColumns ? Cfg::BlockM : Cfg::RowsPerConsumer;
  constexpr int kPieces = (kColumns ? Cfg::RowsPerConsumer : Cfg::BlockM) / 8;  // 16 bytes of a line each
  const int line0 = kColumns ? col0 : row0, along0 = kColumns ? row0 : col0;
  const int lines = kColumns ? args.M : args.N, along = kColumns ? args.N : args.M;  // C's extent each way
  Elem* c = static_cast<Elem*>(args.c);
  const bool vectors = args.ldc % 8 == 0 && reinterpret_cast<uintptr_t>(c) % 16 == 0;
#pragma unroll 4
  for (int i = consumer_thread; i < kLines * kPieces; i += 128) {
    const int r = i / kPieces, piece = i % kPieces;
    const int line = line0 + r, at = along0 + 8 * piece;
    if (line >= lines || at >= along) continue;
    const uint4 v = load_shared_16_bytes(staged + r * kLineBytes + 16 * piece);
    Elem* p = c + (long long)line * args.ldc + at;
    if (vectors && at + 8 <= along) {
      *reinterpret_cast<uint4*>(p) = v;
    } else {
      const Elem* e = reinterpret_cast<const Elem*>(&v);
#pragma unroll
      for (int x = 0; x < 8; ++x)  // unrolled, so e[x] stays in registers
        if (at + x < along) p[x] = e[x];
    }
  }
}

// Writes the 64-column atom `atom` of one 64-row accumulator block into shared memory, in the 128B-swizzled layout
// the TMA store reads: rows of 128 bytes with their 16-byte chunks permuted by row. The permutation also spreads a
// warp's eight rows over all 32 banks.
template <class Cfg>
__device__ __forceinline__ void stage_atom(const float* acc, uint8_t* atom_tile, int row0, int atom) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int jj = 0; jj < 8; ++jj)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = atom * 8 + jj;
      const int row = row0 + warp * 16 + lane / 4 + 8 * h;
      uint8_t* p = atom_tile + row * 128 + ((jj ^ (row % 8)) * 16) + 4 * (lane % 4);
      store_shared_4_bytes(p, out_bits<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]));
    }
}

// One consumer's epilogue, tile after tile: its part of the output tile in shared memory (`out_tile` is the CTA's),
// and the store ring's position, carried across tiles.
template <class Cfg>
struct Epilogue {
  uint8_t* out_tile;
  const TensorMap* c_map;
  const Sm90GemmArgs& args;
  int consumer, consumer_thread, sync_id;
  uint32_t atoms_staged = 0;

  // The tile's accumulators to D at rows row0.. (along N) and columns col0.. (along M).
  __device__ __forceinline__ void store(float (&acc)[Cfg::MmasPerConsumer][Cfg::kAccPerMma], int row0, int col0) {
    namespace ptx = cuda::ptx;
    if constexpr (Cfg::StoreRing) {
      uint8_t* ring = out_tile + consumer * 2 * Cfg::RowsPerConsumer * 128;
#pragma unroll
      for (int atom = 0; atom < Cfg::BlockM / 64; ++atom, ++atoms_staged) {
        uint8_t* buffer = ring + (atoms_staged % 2) * Cfg::RowsPerConsumer * 128;
        // Buffers alternate, so every store but the latest must have read its buffer: the one this atom reuses.
        if (consumer_thread == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<1>{});
        warpgroup_sync(sync_id);
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i) stage_atom<Cfg>(acc[i], buffer, i * 64, atom);
        ptx::fence_proxy_async(ptx::space_shared);
        warpgroup_sync(sync_id);
        if (consumer_thread == 0) {
          const int32_t c_at[2] = {col0 + atom * 64, row0};
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, c_map, c_at, buffer);
          ptx::cp_async_bulk_commit_group();
        }
      }
    } else if constexpr (Cfg::StagedStore) {
      uint8_t* mine = out_tile + consumer * Cfg::kStagedBytes;
      warpgroup_sync(sync_id);  // every thread has copied the previous tile out of the buffer
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i) {
        if constexpr (Cfg::SwapAB) stage_columns<Cfg>(acc[i], mine, i * 64);
        else stage_rows<Cfg>(acc[i], mine + i * 64 * Cfg::kStagedRowBytes);
      }
      warpgroup_sync(sync_id);
      copy_out<Cfg>(mine, args, row0, col0, consumer_thread);
    } else if constexpr (Cfg::TmaStore) {
      uint8_t* mine = out_tile + consumer * Cfg::RowsPerConsumer * Cfg::BlockM * 2;
      // The previous tile's store must have read the staging tile before it is overwritten.
      if (consumer_thread == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      warpgroup_sync(sync_id);
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
        for (int atom = 0; atom < Cfg::BlockM / 64; ++atom)
          stage_atom<Cfg>(acc[i], mine + atom * Cfg::RowsPerConsumer * 128, i * 64, atom);
      ptx::fence_proxy_async(ptx::space_shared);
      warpgroup_sync(sync_id);
      if (consumer_thread == 0) {
        for (int atom = 0; atom < Cfg::BlockM / 64; ++atom) {
          const int32_t c_at[2] = {col0 + atom * 64, row0};
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, c_map, c_at,
                                    mine + atom * Cfg::RowsPerConsumer * 128);
        }
        ptx::cp_async_bulk_commit_group();
      }
    } else {
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i) store_direct<Cfg>(acc[i], args, row0 + i * 64, col0);
    }
  }

  // After the last tile: the TMA stores still in flight have finished.
  __device__ __forceinline__ void finish() const {
    if constexpr (Cfg::TmaStore)
      if (consumer_thread == 0) cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
  }
};

}  // namespace tilewise::kernels::sm90
