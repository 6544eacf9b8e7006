#pragma once
// Decode GEMV on M-major x, the fma engine's form for the NN layout: y[m][n] = sum_k x[m][k] W[n][k] for M = 1..16,
// x stored as columns of tokens (x[m + k * ldx], ldx a multiple of 8), W as the problem stores it (bf16 or fp16, rows
// of K).
//
// Why a kernel of its own: gemv.cuh gives each lane 8 consecutive k of a weight row (one 16-byte load), and the 8
// columns of M-major x that match them are 256 bytes from the next lane's, so every load of x touched 32 cache lines
// instead of 4. On llm24's sn_16_dec that held it at 6.2 us against 2.6 on K-major x
// (results/gemv-nn-transpose-decide.json). Here a lane takes one k and one 8-token half of its column: a warp's
// load of x is 16 columns of 16 tokens, 512 contiguous bytes, and each lane reads its k's weight of each row (2
// bytes; the lane of the other half reads the same one).
//
// Template parameters as gemv.cuh's: M, WF and XT (bf16 or fp16, the same type), THREADS, COLS, KSPLIT (each warp
// one contiguous slice of K, reduced in a fixed order), UNROLL (k a lane loads before it computes), HINT, PDL.
#include "gemv.cuh"

namespace tilewise::kernels::gemv {

template <int M, int WF, int XT, int THREADS, int COLS, int KSPLIT, int UNROLL, int HINT, int PDL, int YROWS = 0>
__global__ void __maxnreg__(register_limit<THREADS>)
    gemv_nn(const unsigned char* __restrict__ x, long long ldx, const unsigned char* __restrict__ w, long long w_row_bytes,
            const void* __restrict__ scales, void* __restrict__ out, long long ldc, int N, int K) {
  static_assert(M >= 1 && M <= 16 && THREADS % 32 == 0 && (THREADS / 32) % KSPLIT == 0, "bad gemv configuration");
  static_assert((WF == w_bf16 && XT == x_bf16) || (WF == w_fp16 && XT == x_fp16), "16-bit weights of x's type");
  constexpr int warps = THREADS / 32, col_groups = warps / KSPLIT, cta_cols = col_groups * COLS;
  constexpr int halves = (M + 7) / 8, k_per_load = 32 / halves;  // lanes a column takes; columns a warp's load takes
  __shared__ float partial[KSPLIT][col_groups][COLS][M];

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int cg = warp / KSPLIT, ks = warp % KSPLIT;
  const int h = lane % halves, kl = lane / halves;  // this lane's 8-token half and its column within a load
  const int k_begin = ks * (K / KSPLIT) + min(ks, K % KSPLIT);
  const int k_end = k_begin + K / KSPLIT + (ks < K % KSPLIT ? 1 : 0);

  unsigned long long policy = 0;
  if constexpr (HINT == hint_evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));

  const int blocks = (N + cta_cols - 1) / cta_cols;
  if constexpr (PDL) {  // prefetch the first block's first weights, then wait (pdl.h; gemv.cuh, prefetch_l2)
    launch_dependents();
#pragma unroll
    for (int c = 0; c < COLS; ++c)
      if (k_begin + kl < k_end)
        prefetch_l2(w + (long long)min(int(blockIdx.x) * cta_cols + cg * COLS + c, N - 1) * w_row_bytes +
                    (long long)(k_begin + kl) * 2);
    wait_for_prerequisites();
  }
  for (int blk = blockIdx.x; blk < blocks; blk += gridDim.x) {  // grid-stride: a persistent grid loops
    const int n0 = blk * cta_cols + cg * COLS;
    long long row[COLS];  // columns past N read row N - 1 and are never stored
#pragma unroll
    for (int c = 0; c < COLS; ++c) row[c] = min(n0 + c, N - 1);
    float acc[COLS][8];
#pragma unroll
    for (int c = 0; c < COLS; ++c)
#pragma unroll
      for (int t = 0; t < 8; ++t) acc[c][t] = 0.0f;

    for (int base = k_begin + kl; base < k_end; base += k_per_load * UNROLL) {
      uint4 wv[UNROLL][COLS], xv[UNROLL];
      // Every load of the step before any arithmetic. Tokens past M of a half read the column's padding (ldx is a
      // multiple of 8) into sums that are never stored.
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const long long k = base + k_per_load * u;
        const bool in = k < k_end;
#pragma unroll
        for (int c = 0; c < COLS; ++c)
          wv[u][c] = in ? load_weights<HINT, 2>(w + row[c] * w_row_bytes + k * 2, policy) : make_uint4(0, 0, 0, 0);
        xv[u] = in ? __ldg(reinterpret_cast<const uint4*>(x + (k * ldx + 8 * h) * 2)) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        float xf[8];
        widen8<XT == x_bf16>(xv[u], xf);
#pragma unroll
        for (int c = 0; c < COLS; ++c) {
          const unsigned bits = wv[u][c].x;
          const float wf = WF == w_bf16 ? __uint_as_float(bits << 16) : __half2float(__ushort_as_half((unsigned short)bits));
#pragma unroll
          for (int t = 0; t < 8; ++t) acc[c][t] = fmaf(wf, xf[t], acc[c][t]);
        }
      }
    }

    // Sum the lanes of each half (every lane of a half ends with its total), then the KSPLIT slices in a fixed order.
#pragma unroll
    for (int c = 0; c < COLS; ++c)
#pragma unroll
      for (int t = 0; t < 8; ++t)
#pragma unroll
        for (int off = 16; off >= halves; off /= 2) acc[c][t] += __shfl_xor_sync(0xFFFFFFFFu, acc[c][t], off);
    if (lane < halves)
#pragma unroll
      for (int c = 0; c < COLS; ++c)
#pragma unroll
        for (int t = 0; t < 8; ++t)
          if (8 * lane + t < M) partial[ks][cg][c][8 * lane + t] = acc[c][t];
    __syncthreads();
    store_columns<M, WF, XT, KSPLIT, YROWS>(threadIdx.x, THREADS, blk * cta_cols, cta_cols, N, scales, out, ldc,
                                     [&](int s, int col, int m) { return partial[s][col / COLS][col % COLS][m]; });
    __syncthreads();  // `partial` is reused by the next block of a persistent grid
  }
}

}  // namespace tilewise::kernels::gemv
