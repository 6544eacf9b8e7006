#pragma once
// Weight quantization for the decode GEMV (kernels/gemv.cuh) and its inverse, on the GPU. Compiled by nvcc into the
// tool (src/families/gemv/quantize.cu) and checked by NVRTC for sm_90a in CI. The CPU reference in
// src/families/gemv/quantize.cpp computes the same bits with the same IEEE operations in the same order; every
// operation here is spelled with an explicit rounding (__fdiv_rn, __fmul_rn) so no fast-math or FMA contraction can
// make the two differ.
//
// Formats (layouts as gemv.cuh reads them; every row is whole 16-byte chunks):
//   q8_0   exactly ggml's quantize_row_q8_0_ref per 32 weights along K: d = amax / 127 in fp32, stored as fp16 (round
//          to nearest even), q = roundf(x * (d ? 1/d : 0)) with that fp32 d (roundf: half away from zero). Stored as
//          planes rather than ggml's 34-byte blocks: q int8 [N][K], d fp16 [N][K/32]; the values are bit-identical.
//   int4   symmetric, a fixed zero point of 8: d = fp16(amax / 7) per group (32 or 128 along K), q = clamp(roundf(x *
//          (1/d)), -8, 7) with the fp16-rounded d (so d * q never exceeds the group's range by more than d's rounding),
//          stored as q + 8, element 2j in the low nibble of byte j. d fp16 [N][K/group].
//   fp8    e4m3 with an fp32 scale per output channel (row): s = amax / 448, q = e4m3_satfinite_rn(x * (s ? 1/s : 0)).
//   bf16, fp16: plain conversion (round to nearest even) from the source type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemv.cuh"

namespace tilewise::kernels::quant {

using gemv::w_bf16;
using gemv::w_fp16;
using gemv::w_fp8;
using gemv::w_int4_g128;
using gemv::w_int4_g32;
using gemv::w_q8_0;

__device__ __forceinline__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float as_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float as_float(__nv_fp8_e4m3 v) { return float(v); }

// One thread per group of G weights of one row (q8_0: G = 32; int4: G = 32 or 128).
template <typename T, int WF>
__global__ void quantize_groups(const T* src, long long ld_src, int N, int K, unsigned char* q, long long q_row_bytes,
                                unsigned short* scales) {
  constexpr int G = gemv::WeightFormat<WF>::group;
  const int groups = K / G;
  const long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (g >= (long long)N * groups) return;
  const long long n = g / groups;
  const int k0 = int(g % groups) * G;
  const T* x = src + n * ld_src + k0;
  float amax = 0.0f;
  for (int j = 0; j < G; ++j) amax = fmaxf(amax, fabsf(as_float(x[j])));
  unsigned char* out = q + n * q_row_bytes;
  __half dh;
  if constexpr (WF == w_q8_0) {
    const float d = __fdiv_rn(amax, 127.0f);
    const float id = d != 0.0f ? __fdiv_rn(1.0f, d) : 0.0f;
    dh = __float2half_rn(d);
    for (int j = 0; j < G; ++j) out[k0 + j] = (unsigned char)(signed char)(roundf(__fmul_rn(as_float(x[j]), id)));
  } else {
    dh = __float2half_rn(__fdiv_rn(amax, 7.0f));
    const float d = __half2float(dh);
    const float id = d != 0.0f ? __fdiv_rn(1.0f, d) : 0.0f;
    for (int j = 0; j < G; j += 2) {
      const float a = fminf(fmaxf(roundf(__fmul_rn(as_float(x[j]), id)), -8.0f), 7.0f);
      const float b = fminf(fmaxf(roundf(__fmul_rn(as_float(x[j + 1]), id)), -8.0f), 7.0f);
      out[(k0 + j) / 2] = (unsigned char)((int(a) + 8) | ((int(b) + 8) << 4));
    }
  }
  scales[g] = __half_as_ushort(dh);
}

// One CTA of 256 threads per row: the row's amax, then every element.
template <typename T>
__global__ void quantize_fp8_rows(const T* src, long long ld_src, int K, unsigned char* q, long long q_row_bytes,
                                  float* scales) {
  __shared__ float warp_max[8];
  const long long n = blockIdx.x;
  const T* x = src + n * ld_src;
  float amax = 0.0f;
  for (int k = threadIdx.x; k < K; k += blockDim.x) amax = fmaxf(amax, fabsf(as_float(x[k])));
  for (int off = 16; off > 0; off /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, off));
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = amax;
  __syncthreads();
  amax = 0.0f;
  for (int w = 0; w < int(blockDim.x / 32); ++w) amax = fmaxf(amax, warp_max[w]);
  const float s = __fdiv_rn(amax, 448.0f);
  const float is = s != 0.0f ? __fdiv_rn(1.0f, s) : 0.0f;
  for (int k = threadIdx.x; k < K; k += blockDim.x)
    q[n * q_row_bytes + k] = __nv_cvt_float_to_fp8(__fmul_rn(as_float(x[k]), is), __NV_SATFINITE, __NV_E4M3);
  if (threadIdx.x == 0) scales[n] = s;
}

// bf16 and fp16 weights: a conversion, one thread per element.
template <typename T, typename O>
__global__ void convert_rows(const T* src, long long ld_src, int N, int K, O* dst) {
  const long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (e >= (long long)N * K) return;
  const float v = as_float(src[(e / K) * ld_src + e % K]);
  dst[e] = O(v);  // __nv_bfloat16(float) and __half(float) round to nearest even
}

// The inverse: the weight the GEMV computes with at row n, column k, in fp32 (exact for every format but fp8, whose
// q * s is one fp32 rounding).
template <int WF>
__device__ __forceinline__ float weight_value(const unsigned char* row, const void* scales, long long n, int K, int k) {
  if constexpr (WF == w_bf16) {
    return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(row)[k]);
  } else if constexpr (WF == w_fp16) {
    return __half2float(reinterpret_cast<const __half*>(row)[k]);
  } else if constexpr (WF == w_fp8) {
    const __half_raw h = __nv_cvt_fp8_to_halfraw(row[k], __NV_E4M3);
    return __fmul_rn(__half2float(__half(h)), static_cast<const float*>(scales)[n]);
  } else {
    constexpr int G = gemv::WeightFormat<WF>::group;
    const float d = __half2float(__ushort_as_half(static_cast<const unsigned short*>(scales)[n * (K / G) + k / G]));
    const int qi = WF == w_q8_0 ? int((signed char)row[k]) : int((row[k / 2] >> (4 * (k % 2))) & 0xF) - 8;
    return __fmul_rn(float(qi), d);
  }
}

__device__ __forceinline__ float to_out(float v, float) { return v; }
__device__ __forceinline__ __nv_bfloat16 to_out(float v, __nv_bfloat16) { return __float2bfloat16_rn(v); }
__device__ __forceinline__ __half to_out(float v, __half) { return __float2half_rn(v); }

// dst[n * K + k] = the weights rounded to O (fp32, bf16 or fp16: nearest even), one thread per 8 values of a row (K is
// a multiple of 8 in every format: whole 16-byte chunks), stored 16 bytes at a time where dst allows it: the scratch
// the 16-bit GEMM reads where no quantized kernel serves the token count. Loads are a byte or two per value, which
// holds it to about a third of the read rate (docs/notes/2026-12-03-decode-step.md, the prefill rows).
template <int WF, typename O>
__global__ void dequantize(const unsigned char* q, long long q_row_bytes, const void* scales, int N, int K, O* dst) {
  constexpr int kChunk = 8;
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int chunks = K / kChunk;
  if (c >= (long long)N * chunks) return;
  const long long n = c / chunks;
  const int k0 = int(c % chunks) * kChunk;
  const unsigned char* row = q + n * q_row_bytes;
  alignas(16) O v[kChunk];
#pragma unroll
  for (int j = 0; j < kChunk; ++j) v[j] = to_out(weight_value<WF>(row, scales, n, K, k0 + j), O{});
  O* out = dst + n * K + k0;
  if (reinterpret_cast<unsigned long long>(out) % 16 == 0) {
    constexpr int kVectors = kChunk * sizeof(O) / 16;
#pragma unroll
    for (int i = 0; i < kVectors; ++i) reinterpret_cast<uint4*>(out)[i] = reinterpret_cast<const uint4*>(v)[i];
  } else {
#pragma unroll
    for (int j = 0; j < kChunk; ++j) out[j] = v[j];
  }
}

}  // namespace tilewise::kernels::quant
