#pragma once
// The decode GEMV as tilewise::gemm runs it: on B as the problem stores it (N rows of K weights, nn.Linear's W), so
// in the weight format of the problem's own type only. A packed format would need weights the caller does not pass.
#include <optional>

#include "core/problem.hpp"
#include "families/gemv/gemv.hpp"

namespace tilewise::select {

// bf16 weights for a bf16 problem, fp16 for fp16; nothing for fp8, whose GEMV format carries a per-channel scale
// the problem does not have.
std::optional<gemv::Format> native_format(DType d);

// The kernel's arguments on the problem's operands: x is A (rows lda apart), the weights are B (rows ldb elements
// apart), the output is C.
gemv::Args native_args(const Problem& p, const void* A, const void* B, void* C);

}  // namespace tilewise::select
