#pragma once
// Random operand fills: uniform in [-1, 1), never zeros, reproducible from (seed, index) alone so any element can
// be regenerated without the buffer. Compiled by nvcc into the tool and checked by NVRTC for sm_90a in CI.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "random.h"

namespace tilewise::kernels {

template <typename T>
__device__ inline T from_float(float v);
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ inline __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <typename T>
__global__ void fill_uniform(T* data, unsigned long long count, unsigned long long seed) {
  const unsigned long long stride = (unsigned long long)(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * (unsigned long long)(blockDim.x) + threadIdx.x; i < count; i += stride)
    data[i] = from_float<T>(uniform_pm1(seed, i));
}

}  // namespace tilewise::kernels
