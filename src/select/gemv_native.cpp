#include "select/gemv_native.hpp"

namespace tilewise::select {

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
