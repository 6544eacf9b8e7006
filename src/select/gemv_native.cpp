#include "select/gemv_native.hpp"

namespace tilewise::select {

gemv::Format native_format(DType d) {
  if (d == DType::bf16) return gemv::Format::bf16;
  if (d == DType::fp16) return gemv::Format::fp16;
  return gemv::Format::fp8;
}

gemv::Args native_args(const Problem& p, const void* A, const void* B, void* C) {
  gemv::Args a;
  a.x = A;
  a.ldx = p.lda;
  a.w = B;
  a.w_row_bytes = p.ldb * element_bytes(p.dtype);
  a.out = C;
  a.ldc = p.ldc;
  return a;
}

}  // namespace tilewise::select
