// Packed weights on wgmma's 64-row side: stored in the order a consumer warpgroup's registers take them, so a thread
// loads its A fragment of a k-tile with one or two 16-byte shared-memory loads and dequantizes it in a few
// instructions per 8 values, and wgmma reads A from registers (docs/notes/2026-12-03-mixed-input-plan.md).
//
// The values and scales are those of kernels/quantize.cuh; only the order differs. Layout "mma order", version 1,
// for B[N][K] with N % 64 == 0 and K % 64 == 0:
//   int4 (symmetric, stored q + 8, an fp16 scale d per group of G = 32 or 128 along K; K % G == 0):
//   q       blocks of 64 rows x 64 k (2048 bytes), block (nb, kb) at byte (nb * K/64 + kb) * 2048. Within a block,
//           thread t of the warpgroup (warp w = t / 32, lane l) owns the 16 bytes at t * 16: one 32-bit word per
//           16-k step s = 0..3, the 8 values of wgmma's m64k16 A fragment. Value j (0..7) of the word sits in bits
//           4 * (j / 2) + 16 * (j % 2), and is row 16w + l/4 + 8 * (j/2 % 2), column 16s + 2 * (l % 4) + j % 2 +
//           8 * (j / 4) of the block; so register r of the fragment (values 2r, 2r + 1) is (word >> 4r) & 0x000F000F.
//   scales  fp16 [N / 64][K / G][64]: the scale of row 64 nb + r in group g at ((nb * K/G) + g) * 64 + r.
//   Q8_0 (a signed byte q, an fp16 scale d per group of 32 along K) and fp8 (e4m3, an fp32 scale per row):
//   q       blocks of 64 rows x 64 k (4096 bytes), block (nb, kb) at byte (nb * K/64 + kb) * 4096. Thread t owns the
//           16 bytes at t * 16 (16-k steps 0 and 1) and the 16 at 2048 + t * 16 (steps 2 and 3), 8 a step, so that
//           a quarter warp's 16-byte loads read 128 contiguous bytes; byte j of a step holds value j as above (row and
//           column as int4's), so register r of the fragment is bytes 2r and 2r + 1 of the step, widened.
//   scales  Q8_0: fp16 [N / 64][K / 32][64], as int4 g32's. fp8: fp32 [N], as the row-major packing keeps them; they
//           multiply a tile's finished sums.
// sm90/packed_order.h maps the order; src/families/sm90/packed.cpp writes it from the row-major packing (GPU and CPU).
#pragma once
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "widen.h"
#include "sm90/config.h"
#include "sm90/packed_order.h"
#include "sm90/primitives.h"
#include "sm90/wgmma.h"

namespace tilewise::kernels::sm90 {

// A scale as the 16-bit multiply uses it. bf16 holds 8 of fp16's 11 significant bits, so d = hi + lo exactly with hi
// = bf16(d) and lo the rest (at most 3 bits); q * d = fma(q, hi, q * lo) then rounds once, as the fp32 product
// rounded to bf16 does (kernels/quantize.cuh's dequantize). fp16 takes d as it is (lo unused).
template <int Input>
struct Scale {
  uint32_t hi, lo;  // the pair (x, x) of the 16-bit type
};

template <int Input>
__device__ __forceinline__ Scale<Input> make_scale(unsigned short bits) {
  const __half d = __ushort_as_half(bits);
  if constexpr (Input == input_fp16) {
    const __half2 d2 = __halves2half2(d, d);
    return {*reinterpret_cast<const uint32_t*>(&d2), 0u};
  } else {
    const float df = __half2float(d);
    const __nv_bfloat16 hi = __float2bfloat16_rn(df);
    const __nv_bfloat16 lo = __float2bfloat16_rn(df - __bfloat162float(hi));  // exact: at most 3 bits
    const __nv_bfloat162 hi2 = __halves2bfloat162(hi, hi), lo2 = __halves2bfloat162(lo, lo);
    return {*reinterpret_cast<const uint32_t*>(&hi2), *reinterpret_cast<const uint32_t*>(&lo2)};
  }
}

// A pair of int4 values q (exact in the 16-bit type) times the row's scale, rounded once: fp16 one multiply; bf16
// fma(q, hi, q * lo), with q * lo exact (4 bits by at most 3). Q8_0's 8-bit q would make q * lo round too, so its bf16
// pairs are scaled in fp32 instead (load_byte_fragments).
template <int Input>
__device__ __forceinline__ uint32_t scale_pair(uint32_t q_bits, const Scale<Input>& d) {
  uint32_t out;
  if constexpr (Input == input_fp16) {
    const __half2 y = __hmul2(*reinterpret_cast<const __half2*>(&q_bits), *reinterpret_cast<const __half2*>(&d.hi));
    out = *reinterpret_cast<const uint32_t*>(&y);
  } else {
    const __nv_bfloat162 q = *reinterpret_cast<const __nv_bfloat162*>(&q_bits);
    const __nv_bfloat162 t = __hmul2(q, *reinterpret_cast<const __nv_bfloat162*>(&d.lo));
    const __nv_bfloat162 y = __hfma2(q, *reinterpret_cast<const __nv_bfloat162*>(&d.hi), t);
    out = *reinterpret_cast<const uint32_t*>(&y);
  }
  return out;
}

// Register r of a fragment from its word: two values q + 8 as 16-bit numbers 2^p + q + 8 (the nibble placed in the
// mantissa of 128 in bf16, 1024 in fp16, one lop3), less 2^p + 8 (exact), times the row's scale.
template <int Input>
__device__ __forceinline__ uint32_t dequantize_pair(uint32_t word, int r, const Scale<Input>& d) {
  constexpr uint32_t kMagic = Input == input_fp16 ? 0x64006400u : 0x43004300u;
  uint32_t v;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(v) : "r"(word >> (4 * r)), "r"(0x000F000Fu), "r"(kMagic));
  uint32_t q;
  if constexpr (Input == input_fp16) {
    const __half2 h = __hsub2(*reinterpret_cast<const __half2*>(&v), __float2half2_rn(1032.0f));
    q = *reinterpret_cast<const uint32_t*>(&h);
  } else {
    const __nv_bfloat162 b = __hsub2(*reinterpret_cast<const __nv_bfloat162*>(&v), __float2bfloat162_rn(136.0f));
    q = *reinterpret_cast<const uint32_t*>(&b);
  }
  return scale_pair<Input>(q, d);
}

// A consumer thread is done with `stage`: every thread read its fragments of it with its own (generic-proxy) loads,
// which must come before the producer's bulk copies (async proxy) into it, so each fences and arrives itself.
__device__ __forceinline__ void release_packed_stage(int stage, uint64_t* empty) {
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  cuda::ptx::mbarrier_arrive(&empty[stage]);
}

// A consumer's A fragments of one k-tile: per 64-row slab, per 16-k step, the four registers wgmma reads.
template <class Cfg>
struct Fragments {
  uint32_t r[Cfg::MmasPerConsumer][Cfg::BlockK / Cfg::kStepK][4];
};

// wgmma reads its A registers until the batch retires, which the compiler does not know: to it they are dead after
// the instruction, and it may build the next k-tile's fragments in them while the batch still reads them (measured:
// wrong outputs wherever registers ran short). An empty asm that reads and writes them after the batch's wait keeps
// them live until then.
template <class Cfg>
__device__ __forceinline__ void keep_until_here(Fragments<Cfg>& f) {
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
    for (int s = 0; s < Cfg::BlockK / Cfg::kStepK; ++s)
      asm volatile("" : "+r"(f.r[i][s][0]), "+r"(f.r[i][s][1]), "+r"(f.r[i][s][2]), "+r"(f.r[i][s][3])::"memory");
}

// A value a byte: each thread's two 16 bytes of each slab, widened; Q8_0's pairs times their group's row scale, fp8's
// left for the finished sums (scale_rows).
template <class Cfg>
__device__ __forceinline__ void load_byte_fragments(const Ring<Cfg>& ring, int stage, int slab0, Fragments<Cfg>& f) {
  constexpr int kSteps = Cfg::BlockK / Cfg::kStepK;  // 4 steps of 16
  constexpr bool kBf16 = Cfg::Input == input_bf16;
  const int t = threadIdx.x % 128;
  const uint8_t* q_tile = ring.b_tile(stage) + slab0 * Cfg::kPackedBlockBytes + t * 16;
  const unsigned short* scale_tile = reinterpret_cast<const unsigned short*>(
      ring.b_tile(stage) + Cfg::kPackedTileBytes + slab0 * Cfg::kScaleBlockBytes);
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i) {
    const uint4 lo = *reinterpret_cast<const uint4*>(q_tile + i * Cfg::kPackedBlockBytes);         // steps 0 and 1
    const uint4 hi = *reinterpret_cast<const uint4*>(q_tile + i * Cfg::kPackedBlockBytes + 2048);  // steps 2 and 3
    const uint32_t words[2 * kSteps] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    if constexpr (Cfg::PackedFp8) {
#pragma unroll
      for (int s = 0; s < kSteps; ++s)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          f.r[i][s][r] =
              e4m3_pair_to_16bit<kBf16>(static_cast<unsigned short>(words[2 * s + r / 2] >> (16 * (r % 2))));
    } else {  // Q8_0: two groups of 32 a k-tile, steps 0-1 and 2-3
      const unsigned short* scales = scale_tile + i * Cfg::kScaleBlockBytes / 2;
#pragma unroll
      for (int g = 0; g < 2; ++g) {
        const unsigned short d0 = scales[g * 64 + packed_row(t, 0)];
        const unsigned short d1 = scales[g * 64 + packed_row(t, 2)];
#pragma unroll
        for (int s = 2 * g; s < 2 * g + 2; ++s)
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const uint32_t word = words[2 * s + r / 2];
            const unsigned short d = r % 2 ? d1 : d0;
            if constexpr (kBf16) {  // q x d in fp32 (8 by 11 bits: exact), rounded once, as the reference's weights
              const float2 q = int8_pair_to_float2(word, 2 * (r % 2));
              const float df = __half2float(__ushort_as_half(d));
              const __nv_bfloat162 y = __floats2bfloat162_rn(q.x * df, q.y * df);
              f.r[i][s][r] = *reinterpret_cast<const uint32_t*>(&y);
            } else {
              f.r[i][s][r] =
                  scale_pair<Cfg::Input>(int8_pair_to_16bit<false>(word, 2 * (r % 2)), make_scale<Cfg::Input>(d));
            }
          }
      }
    }
  }
}

// int4: each thread's 16 bytes of each slab and the scales of its two rows, dequantized.
template <class Cfg>
__device__ __forceinline__ void load_int4_fragments(const Ring<Cfg>& ring, int stage, int slab0, Fragments<Cfg>& f) {
  constexpr int kSteps = Cfg::BlockK / Cfg::kStepK;     // 4 steps of 16
  constexpr int kGroups = Cfg::kScaleBlockBytes / 128;  // scale groups a k-tile: 1 (G = 128) or 2 (G = 32)
  const int t = threadIdx.x % 128;
  const int row0 = packed_row(t, 0), row1 = packed_row(t, 2);
  const uint8_t* q_tile = ring.b_tile(stage) + slab0 * Cfg::kPackedBlockBytes;
  const unsigned short* scale_tile = reinterpret_cast<const unsigned short*>(
      ring.b_tile(stage) + Cfg::kPackedTileBytes + slab0 * Cfg::kScaleBlockBytes);
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i) {
    const uint4 q = *reinterpret_cast<const uint4*>(q_tile + i * Cfg::kPackedBlockBytes + t * 16);
    const uint32_t words[kSteps] = {q.x, q.y, q.z, q.w};
    const unsigned short* scales = scale_tile + i * Cfg::kScaleBlockBytes / 2;
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const Scale<Cfg::Input> d0 = make_scale<Cfg::Input>(scales[g * 64 + row0]);
      const Scale<Cfg::Input> d1 = make_scale<Cfg::Input>(scales[g * 64 + row1]);
#pragma unroll
      for (int s = g * kSteps / kGroups; s < (g + 1) * kSteps / kGroups; ++s)
#pragma unroll
        for (int r = 0; r < 4; ++r) f.r[i][s][r] = dequantize_pair<Cfg::Input>(words[s], r, r % 2 ? d1 : d0);
    }
  }
}

// The fragments of a stage, in the registers wgmma reads.
template <class Cfg>
__device__ __forceinline__ void load_fragments(const Ring<Cfg>& ring, int stage, int slab0, Fragments<Cfg>& f) {
  if constexpr (packed_bytes(Cfg::Weights)) load_byte_fragments<Cfg>(ring, stage, slab0, f);
  else load_int4_fragments<Cfg>(ring, stage, slab0, f);
}

// fp8 weights: a tile's finished sums times their rows' scales (fp32, one a row of B), as the epilogue takes the
// accumulators (row row0 + 64 i + 16 w + l/4 + 8 h). Rows past B's edge multiply by 0.
template <class Cfg>
__device__ __forceinline__ void scale_rows(float (&acc)[Cfg::MmasPerConsumer][Cfg::kAccPerMma], const float* scales,
                                           int row0, int rows) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + i * 64 + warp * 16 + lane / 4 + 8 * h;
      const float d = row < rows ? __ldg(scales + row) : 0.0f;
#pragma unroll
      for (int j = 0; j < Cfg::BlockM / 8; ++j) acc[i][4 * j + 2 * h] *= d, acc[i][4 * j + 2 * h + 1] *= d;
    }
}

// The consumer's k-loop on packed weights: as multiply() (sm90/mma.h), with each 64-row slab's A fragments loaded
// from the stage, dequantized into registers and handed to wgmma from there. Two sets of fragments take turns: a
// k-tile's are built while the batch before reads the other set, which is kept live until that batch retires.
template <class Cfg>
__device__ __forceinline__ void multiply_packed(float (&acc)[Cfg::MmasPerConsumer][Cfg::kAccPerMma],
                                                const Ring<Cfg>& ring, int consumer, int slot0, int k_begin, int k_end,
                                                uint64_t* handover) {
  namespace ptx = cuda::ptx;
  constexpr int kSteps = Cfg::BlockK / Cfg::kStepK;
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kAccPerMma; ++j) acc[i][j] = 0.f;

  const int slab0 = Cfg::Pingpong ? 0 : consumer * Cfg::MmasPerConsumer;
  Fragments<Cfg> turns[2] = {};
  int previous = -1;
  auto step = [&](int kt, Fragments<Cfg>& mine, Fragments<Cfg>& others) {
    const int stage = int((slot0 + kt) % Cfg::Stages);
    const uint32_t phase = uint32_t((slot0 + kt) / Cfg::Stages) & 1;
    while (!ptx::mbarrier_try_wait_parity(&ring.full[stage], phase)) {
    }
    load_fragments<Cfg>(ring, stage, slab0, mine);
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const uint64_t b_desc = smem_descriptor(ring.a_tile(stage) + s * 32, 16, 1024);
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i) wgmma_rs<Cfg::Input, Cfg::BlockM, 0>(acc[i], mine.r[i][s], b_desc);
    }
    wgmma_commit();
#pragma unroll
    for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
    wgmma_wait<1>();  // the batch before, which read `others`, has retired
    keep_until_here<Cfg>(others);
    if (previous >= 0) release_packed_stage(previous, ring.empty);
    previous = stage;
  };
  int kt = k_begin;
  for (; kt + 1 < k_end; kt += 2) {
    step(kt, turns[0], turns[1]);
    step(kt + 1, turns[1], turns[0]);
  }
  if (kt < k_end) step(kt, turns[0], turns[1]);
  if constexpr (Cfg::Pingpong) ptx::mbarrier_arrive(handover);
  wgmma_wait<0>();
  keep_until_here<Cfg>(turns[0]);
  keep_until_here<Cfg>(turns[1]);
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
  if (previous >= 0) release_packed_stage(previous, ring.empty);
}

}  // namespace tilewise::kernels::sm90
