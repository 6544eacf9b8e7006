#pragma once
// The decode GEMV as tilewise::gemm runs it: on B as the problem stores it (N rows of K weights, nn.Linear's W, in both
// layouts), so in the weight format of the problem's own type only (gemv::native_format). A packed format would need
// weights the caller does not pass.
#include "core/problem.hpp"
#include "families/gemv/gemv.hpp"

namespace tilewise::select {

// The kernel's arguments on the problem's operands: x is A (lda elements between rows in TN, between columns of M
// tokens in NN), the weights are B (rows ldb elements apart), the output is C.
gemv::Args native_args(const Problem& p, const void* A, const void* B, void* C);

}  // namespace tilewise::select
