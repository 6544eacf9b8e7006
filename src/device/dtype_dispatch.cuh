#pragma once
// Calls `f` with a value of the CUDA element type of a DType, so one templated launch serves every input type.
// For nvcc-compiled host code that launches kernels (launchers.cu, the gemv quantizer).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "core/problem.hpp"

namespace tilewise::device {

template <typename F>
void dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::bf16: return f(__nv_bfloat16{});
    case DType::fp16: return f(__half{});
    case DType::fp8_e4m3: return f(__nv_fp8_e4m3{});
  }
}

}  // namespace tilewise::device
