#pragma once
// Decode GEMV with the weights streamed into shared memory by bulk copies: y[m][n] = sum_k x[m][k] W[n][k] for
// M = 1..16, the products done by mma.sync as in gemv_mma.cuh.
//
// Why: the register-streaming kernels (gemv.cuh, gemv_mma.cuh) issue a burst of loads, wait for all of them, compute,
// and only then issue the next burst, and each CTA's life is a few such bursts. Between the bursts an SM has fewer
// bytes in flight than HBM's latency needs, and at launch and at every CTA's end the SM's loads stop altogether. At
// M = 1 that held bf16 at about 83% of the read bandwidth, and the small formats (fewer bytes, more arithmetic a byte)
// further below (results/decode-gemv-cold.json). Here one producer warp keeps a ring of STAGES shared-memory stages
// filled with cp.async.bulk, so the loads of later stages are in flight while the consumer warps compute on earlier
// ones, across tile boundaries, from the first instruction of a persistent CTA to its last.
//
// What it measured (results/decode-gemv-bulk-settings.json, decode-gemv-m1-settings.json, decode-gemv-fp8-settings.json):
// slower than the register-streaming engines at M = 1 in every format (bf16 27.9 against 26.9 us on dec_m1_12288,
// 124 against 110 on dec_m1_8k), and at best even with them at M = 16. The pattern points at the copies themselves:
// settings with more, smaller copies a stage ran slower at equal bytes in flight (1 KB rows: 34.8 us; Q8_0, whose
// scales are 64-byte copies: 24.6 against the FMA kernel's 20.0), and one CTA an SM did worse than three. So no default takes it; it
// stays in the tuner's space, and is the staged path a layout that makes each stage one contiguous copy would use
// (packed formats choose their own row order).
//
// Work: a tile is 16 rows of W (one m16 fragment) by the whole of K; CTA b takes tiles b, b + grid, ... A stage holds
// one K slice of a tile's 16 rows: STAGE_ROW bytes of each row, one bulk copy a row (and for the grouped formats one
// more a row for the slice's group scales). Each of the WARPS consumer warps takes UNROLL units of the stage, a unit
// being four lanes' pieces of each row (MmaPiece: 64 bytes of a row, 32 for Q8_0; one group of the grouped formats),
// copies them to registers, releases the stage, and runs the mmas. At a tile's end the warps' fp32 sums are added in a
// fixed order through shared memory, so results are deterministic.
//
// Shared-memory rows are STAGE_ROW + one unit apart: the eight rows a warp's load instruction touches then start on
// different banks (16-byte pieces: 64 bytes apart, two rows a 128-byte wavefront; Q8_0's 8-byte pieces: 32 bytes
// apart), so no load waits on a bank conflict.
//
// Template parameters (the gemv configuration with engine=bulk, src/families/gemv): M, WF, XT, XL as in gemv_mma.cuh;
// WARPS consumer warps (the CTA has one more, the producer); UNROLL units a warp takes from each stage; STAGES in the
// ring; HINT the weight stream's L2 policy (hint_evict_first, or none); PDL as in gemv.cuh: the producer asks the
// first slices of its first tile into L2 before the wait.
#include <cuda/ptx>

#include "gemv_mma.cuh"

namespace tilewise::kernels::gemv {

// Where everything lives in the dynamic shared memory; src/families/gemv/config.cpp's bulk_shared_bytes() is the same
// arithmetic, and the kernel refuses to run with less (gemv_bulk, below).
template <int M, int WF, int XT, int WARPS, int UNROLL, int STAGES>
struct BulkLayout {
  using P = MmaPiece<WF, XT>;
  static constexpr int unit_bytes = 4 * P::bytes;                        // one row's share of a unit
  static constexpr int units = WARPS * UNROLL;                           // units of a stage
  static constexpr int stage_row = units * unit_bytes;                   // K bytes of each row a stage holds
  static constexpr int row_stride = stage_row + unit_bytes;              // the padding that spreads rows over banks
  static constexpr int scale_row = P::grouped ? units * 2 : 0;           // a row's fp16 scales of one stage
  static constexpr int stage_bytes = (16 * (row_stride + scale_row) + 127) / 128 * 128;
  static constexpr int partial_offset = STAGES * stage_bytes;            // the warps' sums: [2][WARPS][16][M] floats
  static constexpr int barrier_offset = partial_offset + 2 * WARPS * 16 * M * 4;
  static constexpr int bytes = barrier_offset + 2 * STAGES * 8;          // full[STAGES], then empty[STAGES]
};

// One bulk copy of `bytes` (a multiple of 16, both addresses 16-byte aligned) into shared memory, counted on `bar`.
template <int HINT>
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, unsigned long long* bar,
                                          unsigned long long policy) {
  if constexpr (HINT == hint_evict_first) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
        ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), "l"(src), "r"(bytes),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "l"(policy)
        : "memory");
  } else {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
  }
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned phase) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, phase)) {
  }
}

// The consumer warps only (the producer may have left): a barrier of WARPS * 32 threads.
template <int WARPS>
__device__ __forceinline__ void consumers_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(WARPS * 32) : "memory");
}

template <int M, int WF, int XT, int XL, int WARPS, int UNROLL, int STAGES, int HINT, int PDL, int YROWS = 0>
__global__ void __maxnreg__(register_limit<(WARPS + 1) * 32>)
    gemv_bulk(const unsigned char* __restrict__ x, long long ldx, const unsigned char* __restrict__ w,
              long long w_row_bytes, const void* __restrict__ scales, void* __restrict__ out, long long ldc, int N, int K) {
  static_assert(M >= 1 && M <= 16 && WARPS >= 1 && UNROLL >= 1 && STAGES >= 2, "bad gemv configuration");
  using P = MmaPiece<WF, XT>;
  using L = BulkLayout<M, WF, XT, WARPS, UNROLL, STAGES>;
  constexpr int tiles_m = TokenRows<M, WF, XT, XL>::tiles;  // 8-token halves of x
  extern __shared__ __align__(128) unsigned char smem[];
  float(*partial)[WARPS][16][M] = reinterpret_cast<float(*)[WARPS][16][M]>(smem + L::partial_offset);
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + L::barrier_offset);
  unsigned long long* empty = full + STAGES;

  unsigned dynamic_bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
  if (dynamic_bytes < unsigned(L::bytes)) __trap();  // the host's layout arithmetic disagrees with this one

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int tiles = (N + 15) / 16;
  const int row_bytes = K / WeightFormat<WF>::elems * 16;  // packed weight bytes of a row (whole units: feasibility)
  const int k_stages = (row_bytes + L::stage_row - 1) / L::stage_row;
  const int groups = P::grouped ? K / WeightFormat<WF>::group : 0;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], WARPS * 32);  // every consumer thread, once its reads are done
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if constexpr (PDL) launch_dependents();

  if (warp == WARPS) {  // the producer: lane 0 sets each stage's bytes, lanes 0-15 copy rows, lanes 16-31 their scales
    unsigned long long policy = 0;
    if constexpr (HINT == hint_evict_first)
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    if constexpr (PDL) {
      // The kernel before may still be writing what this one reads, so the copies wait for it; its first slices of
      // the first tile's rows are asked into L2 first (a prefetch cannot read stale data: writes land in L2).
      const int n0 = blockIdx.x * 16;
      if (n0 + lane < N && lane < 16)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(w + (long long)(n0 + lane) * w_row_bytes),
                     "r"(unsigned(min(row_bytes, STAGES * L::stage_row))) : "memory");
      wait_for_prerequisites();
    }
    int stage = 0;
    unsigned phase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const int n0 = tile * 16, rows = min(16, N - n0);
      for (int ks = 0; ks < k_stages; ++ks) {
        const int k0 = ks * L::stage_row;
        const int bytes = min(L::stage_row, row_bytes - k0);
        const int scale_bytes = P::grouped ? bytes / L::unit_bytes * 2 : 0;
        // Every lane that copies into the stage has itself seen the consumers release it (racecheck saw copies by
        // lanes that had only synchronized with the waiting lane as racing the consumers' reads).
        wait_phase(&empty[stage], phase ^ 1);
        if (lane == 0)
          cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               &full[stage], unsigned(rows * (bytes + scale_bytes)));
        __syncwarp();
        unsigned char* st = smem + stage * L::stage_bytes;
        const int r = lane % 16;
        if (r < rows) {  // rows past N are not copied: their sums are never stored
          if (lane < 16)
            bulk_load<HINT>(st + r * L::row_stride, w + (long long)(n0 + r) * w_row_bytes + k0, unsigned(bytes),
                            &full[stage], policy);
          else if (P::grouped)
            bulk_load<hint_none>(st + 16 * L::row_stride + r * L::scale_row,
                                 static_cast<const unsigned char*>(scales) +
                                     ((long long)(n0 + r) * groups + k0 / L::unit_bytes) * 2,
                                 unsigned(scale_bytes), &full[stage], 0);
        }
        if (++stage == STAGES) stage = 0, phase ^= 1;
      }
    }
    return;
  }

  // A consumer warp: lane (g, q) takes rows g and g + 8 of the tile and quarter q of each unit.
  const int g = lane / 4, q = lane % 4;
  const TokenRows<M, WF, XT, XL> tokens(x, ldx, g, q);
  if constexpr (PDL) wait_for_prerequisites();  // x and the output belong to the stream's order

  int stage = 0, buffer = 0;
  unsigned phase = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    float acc[tiles_m][4];
#pragma unroll
    for (int t = 0; t < tiles_m; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[t][i] = 0.0f;

    for (int ks = 0; ks < k_stages; ++ks) {
      const int k0 = ks * L::stage_row;
      const int units = min(L::stage_row, row_bytes - k0) / L::unit_bytes;  // fewer in the last slice of a row
      uint4 wv[UNROLL][2], xv[UNROLL][tiles_m][P::x_vecs];
      float scale[UNROLL][2];
      // x first: it comes from L1 or L2, the weights from shared memory once the stage has landed.
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int unit = warp * UNROLL + u;
        tokens.load((k0 + unit * L::unit_bytes) / P::bytes + q, unit < units ? 4 : 0, xv[u]);  // this lane's piece
      }
      wait_phase(&full[stage], phase);
      const unsigned char* st = smem + stage * L::stage_bytes;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int unit = warp * UNROLL + u;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const unsigned char* piece = st + (g + 8 * r) * L::row_stride + unit * L::unit_bytes + q * P::bytes;
          wv[u][r] = make_uint4(0, 0, 0, 0);
          scale[u][r] = 0.0f;
          if (unit < units) {
            if constexpr (P::bytes == 16) {
              wv[u][r] = *reinterpret_cast<const uint4*>(piece);
            } else {
              const uint2 h = *reinterpret_cast<const uint2*>(piece);
              wv[u][r].x = h.x, wv[u][r].y = h.y;
            }
            if constexpr (P::grouped)
              scale[u][r] = __half2float(
                  *reinterpret_cast<const __half*>(st + 16 * L::row_stride + (g + 8 * r) * L::scale_row + unit * 2));
          }
        }
      }
      cuda::ptx::mbarrier_arrive(&empty[stage]);  // this thread's share of the stage is in registers
      if (++stage == STAGES) stage = 0, phase ^= 1;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
        if (warp * UNROLL + u < units) mma_piece<WF, XT, tiles_m>(wv[u], xv[u], scale[u], acc);
    }

    // The warps' sums, added in warp order. Two buffers: a warp writing tile i + 2's sums has passed tile i + 1's
    // barrier, so every warp has finished reading tile i's.
    store_fragment<M, tiles_m>(acc, g, q, partial[buffer][warp]);
    consumers_sync<WARPS>();
    store_columns<M, WF, XT, WARPS, YROWS>(threadIdx.x, WARPS * 32, tile * 16, 16, N, scales, out, ldc,
                                    [&](int s, int col, int m) { return partial[buffer][s][col][m]; });
    buffer ^= 1;
  }
}

}  // namespace tilewise::kernels::gemv
