#pragma once
// How a GEMM problem maps onto the GEMV's own form (M tokens of x against N weight rows of K, gemv.hpp), in both
// orientations of docs/design.md:
//   tokens as M (the seeds' decode suites): x = A, weights = B, C column-major [T x F] (out[n * ldc + m]);
//   tokens as N (nn.Linear's y[T, F] = x W^T, TN with M = F, N = T, A = W, B = x): x = B, weights = A, and C
//   column-major [F x T] is y row-major (out[m * ldc + n] in the GEMV's names: a kernel built with y_rows).
// The family's rules (feasibility, the default configuration, the tuner's space) all speak of the view's problem.
#include <optional>

#include "core/problem.hpp"
#include "families/gemv/gemv.hpp"

namespace tilewise::gemv {

struct View {
  Problem problem;           // tokens as its M, the weights as its N rows of K
  bool tokens_as_n = false;  // nn.Linear's orientation: the kernel is built with y_rows (gemv.hpp)
};

// Tokens as M when M <= 16; else tokens as N when the problem is TN (x then has rows of K) and N <= 16; else none.
std::optional<View> view_of(const Problem& p);
View require_view(const Problem& p);  // view_of's, or Unsupported naming the problem

// The kernel's arguments on the problem's own operands (16-bit or fp8 weights as the problem stores them); ldc is the
// problem's, between tokens when they are N.
Args view_args(const View& v, const Problem& p, const void* A, const void* B, void* C);

}  // namespace tilewise::gemv
