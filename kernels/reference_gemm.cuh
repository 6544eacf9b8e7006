#pragma once
// The reference every arm is checked against: a plain tiled fp32-accumulate GEMM on CUDA cores, written for
// obviousness rather than speed, with no tensor cores and nothing shared with the kernels it judges.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "error_sums.h"

namespace tilewise::kernels {

__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_fp8_e4m3 v) { return float(v); }
__device__ inline float to_float(float v) { return v; }

namespace reference {
constexpr int tile = 64;        // C tile per block (tile x tile)
constexpr int depth = 16;       // K step per shared-memory stage
constexpr int threads = 256;    // 16 x 16 threads, 4 x 4 outputs each
}  // namespace reference

// ref[i + j*M] = sum_k opA(i,k) * opB(k,j), with opA(i,k) = A[i*a_i + k*a_k] and opB(k,j) = B[k + j*ldb]. A or B
// may be fp32 (TA, TB = float): the dequantized weights a quantized arm computes with.
template <typename TA, typename TB = TA>
__global__ void __launch_bounds__(reference::threads)
    reference_gemm(int M, int N, int K, const TA* A, long long a_i, long long a_k, const TB* B, long long ldb, float* ref) {
  using namespace reference;
  __shared__ float As[depth][tile + 1];
  __shared__ float Bs[depth][tile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int i0 = blockIdx.x * tile, j0 = blockIdx.y * tile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += depth) {
    // Each thread stages 4 elements of each operand; k runs fastest when it is the contiguous index.
    for (int e = threadIdx.x; e < tile * depth; e += threads) {
      const bool k_fast = a_k == 1;
      const int kk = k_fast ? e % depth : e / tile, ii = k_fast ? e / depth : e % tile;
      const int i = i0 + ii, k = k0 + kk;
      As[kk][ii] = (i < M && k < K) ? to_float(A[i * a_i + k * a_k]) : 0.0f;
    }
    for (int e = threadIdx.x; e < tile * depth; e += threads) {
      const int kk = e % depth, jj = e / depth;
      const int j = j0 + jj, k = k0 + kk;
      Bs[kk][jj] = (j < N && k < K) ? to_float(B[k + j * ldb]) : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < depth; ++kk)
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) acc[r][c] += As[kk][tx + 16 * r] * Bs[kk][ty + 16 * c];
    __syncthreads();
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const int i = i0 + tx + 16 * r, j = j0 + ty + 16 * c;
      if (i < M && j < N) ref[i + (long long)j * M] = acc[r][c];
    }
}

// Accumulates ||out - ref||^2, ||ref||^2, max |out - ref| and the count of non-finite outputs (a NaN left by the
// poison means an element was never written).
template <typename T>
__global__ void compare_to_reference(int M, int N, const T* out, long long ldc, const float* ref, ErrorSums* sums) {
  double d2 = 0, r2 = 0;
  float max_abs = 0;
  unsigned long long bad = 0;
  const long long count = (long long)M * N;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x) {
    const long long i = e % M, j = e / M;
    const float o = to_float(out[i + j * ldc]), r = ref[e];
    if (!isfinite(o)) {
      ++bad;
      continue;
    }
    const float d = o - r;
    d2 += double(d) * d;
    r2 += double(r) * r;
    max_abs = fmaxf(max_abs, fabsf(d));
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    d2 += __shfl_down_sync(0xffffffffu, d2, offset);
    r2 += __shfl_down_sync(0xffffffffu, r2, offset);
    max_abs = fmaxf(max_abs, __shfl_down_sync(0xffffffffu, max_abs, offset));
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums->diff_sq, d2);
    atomicAdd(&sums->ref_sq, r2);
    atomicMax(&sums->max_abs_bits, __float_as_uint(max_abs));
    atomicAdd(&sums->non_finite, bad);
  }
}

}  // namespace tilewise::kernels
