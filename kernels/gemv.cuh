#pragma once
// Decode GEMV: y[m][n] = sum_k x[m][k] W[n][k] for M = 1..16 rows of activations, the weights W[N][K] (K-major, the
// TN layout) streamed from HBM once per launch. The time floor is the weight bytes over the read bandwidth, so the
// kernel is built around keeping many 16-byte weight loads in flight per SM: each lane issues UNROLL x COLS of them
// (one per column it owns) before it touches any, and the CTA count is chosen so every SM holds several CTAs.
//
// Everything that shapes the code is a template parameter (the gemv family's configuration, src/families/gemv):
//   M        rows of x (1..16), compile time so the accumulators live in registers
//   WF       weight format: bf16, fp16, q8_0 (int8, fp16 scale per 32 along K, ggml's definition), int4 with an fp16
//            scale per 32 or 128 along K, fp8 e4m3 with an fp32 scale per output channel
//   XT       activation type (bf16, fp16, fp8 e4m3); the output is fp16 for fp16 activations, bf16 otherwise
//   THREADS  threads per CTA; its warps form THREADS/32/KSPLIT column groups of COLS columns each
//   COLS     output columns per warp (loads in flight per lane scale with it; x is read once for all of them)
//   KSPLIT   warps of a CTA that share columns, each streaming one contiguous slice of K; they are reduced through
//            shared memory in a fixed order, so the result is deterministic
//   UNROLL   16-byte chunks per column a lane loads before it computes (bytes in flight per lane: 16*UNROLL*COLS)
//   HINT     cache policy of the weight stream (the weights are read once: keep them out of L1 and out of L2's way)
//   PDL      1: launched as a programmatic dependent (src/families/gemv/gemv.cpp), so the grid may start while the
//            kernel before it in the stream is finishing (pdl.h)
//   PREFETCH 1: a lane issues the next step's loads before it computes this step's (two register buffers), so its
//            bytes stay in flight while it dequantizes and multiplies; 0: it loads a step, then computes it
// Accumulation is fp32 throughout. Scaled formats sum q*x over one 16-byte chunk (which never straddles a group)
// and add scale * partial to the accumulator.
//
// Packed layouts (written by kernels/quantize.cuh): every format stores row n of W at w + n * w_row_bytes as whole
// 16-byte chunks; int4 keeps element 2j in the low nibble of byte j and stores q + 8; group scales are fp16
// [N][K / group]; fp8 channel scales are fp32 [N], or none (null) for an fp8 problem's B read as it is (scale 1).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemv_codes.h"
#include "pdl.h"
#include "weight_load.h"

namespace tilewise::kernels::gemv {

// Elements of one 16-byte weight chunk, and the K extent one scale covers (0: no group scale).
template <int WF>
struct WeightFormat {
  static constexpr int elems = WF == w_bf16 || WF == w_fp16 ? 8 : WF == w_q8_0 || WF == w_fp8 ? 16 : 32;
  static constexpr int group = WF == w_q8_0 || WF == w_int4_g32 ? 32 : WF == w_int4_g128 ? 128 : 0;
};

__device__ __forceinline__ unsigned word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

// Two e4m3 values (the low 16 bits, element 0 lowest) as floats, exactly.
__device__ __forceinline__ float2 e4m3x2_to_float2(unsigned bits) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(bits), __NV_E4M3);
  return __half22float2(*reinterpret_cast<const __half2*>(&h));
}

// Eight 16-bit values (bf16 or fp16; element 0 in the low half of word 0) as floats, exactly.
template <bool BF16>
__device__ __forceinline__ void widen8(const uint4& v, float (&f)[8]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const unsigned w = word(v, i);
    if constexpr (BF16) {
      f[2 * i] = __uint_as_float(w << 16), f[2 * i + 1] = __uint_as_float(w & 0xFFFF0000u);
    } else {
      const float2 t = __half22float2(*reinterpret_cast<const __half2*>(&w));
      f[2 * i] = t.x, f[2 * i + 1] = t.y;
    }
  }
}

// (a & mask) | bits in one instruction: written in C, ptxas (CUDA 13.0) gave it two LOP3s, an immediate each, which
// the int4 dequantization below and in gemv_mma.cuh issues for every pair of weights.
__device__ __forceinline__ unsigned and_or(unsigned a, unsigned mask, unsigned bits) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(d) : "r"(a), "r"(mask), "r"(bits));  // 0xEA: (a & b) | c
  return d;
}

// Eight activations x[k .. k+8) as floats.
template <int XT>
__device__ __forceinline__ void load_x8(const unsigned char* p, float (&f)[8]) {
  if constexpr (XT == x_fp8) {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 t = e4m3x2_to_float2((i < 2 ? v.x : v.y) >> (16 * (i % 2)));
      f[2 * i] = t.x, f[2 * i + 1] = t.y;
    }
  } else {
    widen8<XT == x_bf16>(__ldg(reinterpret_cast<const uint4*>(p)), f);
  }
}

// Weights s*8 .. s*8+8 of a chunk as floats (unscaled: q for the integer formats, the stored value otherwise).
template <int WF>
__device__ __forceinline__ void weights8(const uint4& v, int s, float (&f)[8]) {
  if constexpr (WF == w_bf16 || WF == w_fp16) {  // one chunk is 8 elements: s == 0
    widen8<WF == w_bf16>(v, f);
  } else if constexpr (WF == w_q8_0 || WF == w_fp8) {  // 16 elements: words 2s and 2s+1
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const unsigned w = word(v, 2 * s + h);
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        if constexpr (WF == w_q8_0) {
          // Not an int-to-float convert (a quarter-rate instruction, which held this format at 0.6 of the read
          // bandwidth): byte b of q + 128 under the exponent of 2^23 reads as 2^23 + q + 128, exactly, and one
          // subtraction leaves q.
          const unsigned biased = __byte_perm(w ^ 0x80808080u, 0x4B000000u, 0x7440 + b);
          f[4 * h + b] = __uint_as_float(biased) - 8388736.0f;
        } else if (b % 2 == 0) {
          const float2 t = e4m3x2_to_float2(w >> (8 * b));
          f[4 * h + b] = t.x, f[4 * h + b + 1] = t.y;
        }
      }
    }
  } else {  // int4, 32 elements: word s holds elements 8s .. 8s+8, element e in nibble e (bits 4e .. 4e+3)
    const unsigned w = word(v, s);
    // fp16 magic: 0x6400 is 1024.0, so (nibble | 0x6400) is 1024 + u exactly and subtracting 1032 leaves u - 8.
    const __half2 bias = __float2half2_rn(1032.0f);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // Nibbles j and j + 4 (elements j and j + 4) land in the low and high half-words: two elements per op.
      const unsigned bits = and_or(w >> (4 * j), 0x000F000Fu, 0x64006400u);
      const float2 t = __half22float2(__hsub2(*reinterpret_cast<const __half2*>(&bits), bias));
      f[j] = t.x, f[j + 4] = t.y;
    }
  }
}

template <int WF>
__device__ __forceinline__ float group_scale(const unsigned short* scales, long long row, int groups, int chunk) {
  constexpr int per_group = WeightFormat<WF>::group / WeightFormat<WF>::elems;  // chunks per group
  const unsigned short bits = __ldg(scales + row * groups + chunk / per_group);
  return __half2float(*reinterpret_cast<const __half*>(&bits));
}

// PDL = 1 (pdl.h): every CTA lets the next grid launch at once; the weights do not depend on the grid before, so each
// lane asks for its first chunks into L2 before it waits (L2 is where every SM's writes meet, so a line fetched early
// is never stale); x and the output do, so nothing reads x or writes the output before the wait.
__device__ __forceinline__ void prefetch_l2(const unsigned char* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

template <int XT>
__device__ __forceinline__ void store_out(void* out, long long index, float v) {
  if constexpr (XT == x_fp16) static_cast<__half*>(out)[index] = __float2half_rn(v);
  else static_cast<__nv_bfloat16*>(out)[index] = __float2bfloat16_rn(v);
}

// The CTA's last step, shared by the three engines: output columns n0 .. n0 + cols (those under N), each token, the
// sum of the SLICES partial sums partial(slice, col, m) in slice order (so the result is the same every run), times
// the fp8 format's channel scale, stored at out[n * ldc + m] (C column-major, tokens as rows) or, with YROWS, at
// out[m * ldc + n] (nn.Linear's y[T, F] row-major; a template parameter, since a run-time stride cost registers
// the 2-CTA kernels at M = 16 do not have: 130 where 128 fit two CTAs an SM). Threads first, first + stride, ...
// take one (column, token) each.
template <int M, int WF, int XT, int SLICES, int YROWS, typename Partial>
__device__ __forceinline__ void store_columns(int first, int stride, int n0, int cols, int N, const void* scales,
                                              void* out, long long ldc, const Partial& partial) {
  for (int i = first; i < cols * M; i += stride) {
    // Tokens first in both orders: taking y's columns first (contiguous stores) cost the 2-CTA kernels at M = 16
    // twelve registers (130 where 118 fit two an SM), and the output is under 1% of the bytes a launch moves.
    const int m = i % M, col = i / M, n = n0 + col;
    if (n >= N) continue;
    float sum = 0.0f;
#pragma unroll
    for (int s = 0; s < SLICES; ++s) sum += partial(s, col, m);
    if constexpr (WF == w_fp8)
      if (scales) sum *= __ldg(static_cast<const float*>(scales) + n);  // none: an fp8 problem's own B, scale 1
    store_out<XT>(out, YROWS ? (long long)m * ldc + n : (long long)n * ldc + m, sum);
  }
}

// Registers a thread may use so THREADS of them fit the SM's 64K (255 at most; a multiple of 8, the allocation
// unit); src/families/gemv/config.cpp's register_limit() is the same rule. The cap is given as __maxnreg__, not as
// __launch_bounds__(THREADS): under .maxntid ptxas (CUDA 13.0) chose register targets far under the cap (40, 48, 64,
// ... 168) and spilled long-lived values (row pointers, shared-memory addresses) to local memory to meet them; under
// .maxnreg it spills only where the work needs more than the cap (what register_estimate() keeps infeasible).
template <int THREADS>
constexpr int register_limit = 65536 / THREADS / 8 * 8 < 255 ? 65536 / THREADS / 8 * 8 : 255;

template <int M, int WF, int XT, int THREADS, int COLS, int KSPLIT, int UNROLL, int HINT, int PDL, int PREFETCH, int YROWS = 0>
__global__ void __maxnreg__(register_limit<THREADS>)
    gemv(const unsigned char* __restrict__ x, long long ldx, const unsigned char* __restrict__ w, long long w_row_bytes,
         const void* __restrict__ scales, void* __restrict__ out, long long ldc, int N, int K) {
  static_assert(M >= 1 && M <= 16 && THREADS % 32 == 0 && (THREADS / 32) % KSPLIT == 0, "bad gemv configuration");
  constexpr int warps = THREADS / 32, col_groups = warps / KSPLIT, cta_cols = col_groups * COLS;
  constexpr int elems = WeightFormat<WF>::elems, group = WeightFormat<WF>::group;
  constexpr int x_bytes = XT == x_fp8 ? 1 : 2;
  __shared__ float partial[KSPLIT][col_groups][COLS][M];

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int cg = warp / KSPLIT, ks = warp % KSPLIT;
  const int chunks = K / elems;  // feasibility guarantees K % elems == 0 (and K % group == 0)
  const int groups = group ? K / group : 0;
  // Contiguous K slices, the first chunks % KSPLIT one chunk longer.
  const int c_begin = ks * (chunks / KSPLIT) + min(ks, chunks % KSPLIT);
  const int c_end = c_begin + chunks / KSPLIT + (ks < chunks % KSPLIT ? 1 : 0);

  unsigned long long policy = 0;
  if constexpr (HINT == hint_evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));

  const int blocks = (N + cta_cols - 1) / cta_cols;
  if constexpr (PDL) {  // prefetch the first block's first step, then wait (launch_dependents, above)
    launch_dependents();
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int c = 0; c < COLS; ++c)
        if (c_begin + lane + 32 * u < c_end)
          prefetch_l2(w + (long long)min(int(blockIdx.x) * cta_cols + cg * COLS + c, N - 1) * w_row_bytes +
                      (long long)(c_begin + lane + 32 * u) * 16);
    wait_for_prerequisites();
  }
  for (int blk = blockIdx.x; blk < blocks; blk += gridDim.x) {  // grid-stride: a persistent grid loops
    const int n0 = blk * cta_cols + cg * COLS;
    // Columns past N read row N - 1 (kept in bounds, no predicate in the stream) and are never stored.
    long long row[COLS];
#pragma unroll
    for (int c = 0; c < COLS; ++c) row[c] = min(n0 + c, N - 1);
    float acc[COLS][M];
#pragma unroll
    for (int c = 0; c < COLS; ++c)
#pragma unroll
      for (int m = 0; m < M; ++m) acc[c][m] = 0.0f;

    // One step: UNROLL chunks of each of the COLS rows from chunk `base` on (zeros past the slice), with their scales.
    auto load_step = [&](int base, uint4 (&v)[UNROLL][COLS], float (&scale)[UNROLL][COLS]) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int ci = base + 32 * u;
#pragma unroll
        for (int c = 0; c < COLS; ++c) {
          v[u][c] = ci < c_end ? load_weights<HINT>(w + row[c] * w_row_bytes + (long long)ci * 16, policy)
                               : make_uint4(0, 0, 0, 0);
          if constexpr (group != 0)
            scale[u][c] = ci < c_end ? group_scale<WF>(static_cast<const unsigned short*>(scales), row[c], groups, ci) : 0.0f;
        }
      }
    };
    uint4 ahead[UNROLL][COLS];
    float ahead_scale[UNROLL][COLS];
    if constexpr (PREFETCH) load_step(c_begin + lane, ahead, ahead_scale);
    for (int base = c_begin + lane; base < c_end; base += 32 * UNROLL) {
      uint4 v[UNROLL][COLS];
      float scale[UNROLL][COLS];
      // Issue every load of this step (PREFETCH: of the next one) before any arithmetic: these are the bytes in flight.
      if constexpr (PREFETCH) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int c = 0; c < COLS; ++c) {
            v[u][c] = ahead[u][c];
            if constexpr (group != 0) scale[u][c] = ahead_scale[u][c];
          }
        load_step(base + 32 * UNROLL, ahead, ahead_scale);
      } else {
        load_step(base, v, scale);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int ci = base + 32 * u;
        if (ci >= c_end) break;
        // Scaled formats sum one chunk (inside one group) apart and scale it; the others accumulate directly.
        float part[COLS][M];
        float(&sum)[COLS][M] = group != 0 ? part : acc;
#pragma unroll
        for (int c = 0; c < COLS; ++c)
#pragma unroll
          for (int m = 0; m < M; ++m) part[c][m] = 0.0f;
#pragma unroll
        for (int s = 0; s < elems / 8; ++s) {
          float wf[COLS][8];
#pragma unroll
          for (int c = 0; c < COLS; ++c) weights8<WF>(v[u][c], s, wf[c]);
          const long long k = (long long)ci * elems + 8 * s;
#pragma unroll
          for (int m = 0; m < M; ++m) {
            float xf[8];
            load_x8<XT>(x + (m * ldx + k) * x_bytes, xf);
#pragma unroll
            for (int c = 0; c < COLS; ++c)
#pragma unroll
              for (int e = 0; e < 8; ++e) sum[c][m] = fmaf(wf[c][e], xf[e], sum[c][m]);
          }
        }
        if constexpr (group != 0)
#pragma unroll
          for (int c = 0; c < COLS; ++c)
#pragma unroll
            for (int m = 0; m < M; ++m) acc[c][m] = fmaf(scale[u][c], part[c][m], acc[c][m]);
      }
    }

    // Sum the warp's lanes (every lane ends with the total), then the KSPLIT slices in a fixed order.
#pragma unroll
    for (int c = 0; c < COLS; ++c)
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int off = 16; off > 0; off /= 2) acc[c][m] += __shfl_xor_sync(0xFFFFFFFFu, acc[c][m], off);
    if (lane == 0)
#pragma unroll
      for (int c = 0; c < COLS; ++c)
#pragma unroll
        for (int m = 0; m < M; ++m) partial[ks][cg][c][m] = acc[c][m];
    __syncthreads();
    store_columns<M, WF, XT, KSPLIT, YROWS>(threadIdx.x, THREADS, blk * cta_cols, cta_cols, N, scales, out, ldc,
                                     [&](int s, int col, int m) { return partial[s][col / COLS][col % COLS][m]; });
    __syncthreads();  // `partial` is reused by the next block of a persistent grid
  }
}

}  // namespace tilewise::kernels::gemv
