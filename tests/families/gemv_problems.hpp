#pragma once
// The decode problem the gemv tests build: y[M,N] = x[M,K] W[N,K]^T, TN, with optional padding of every stride.
#include "core/problem.hpp"

namespace tilewise::gemv {

inline Problem decode(int64_t M, int64_t N, int64_t K, DType d = DType::bf16, int64_t pad = 0) {
  return make_problem("dec", M, N, K, d, Layout::TN, pad);
}

}  // namespace tilewise::gemv
