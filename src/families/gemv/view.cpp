#include "families/gemv/view.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tilewise::gemv {

namespace {
constexpr int64_t max_tokens = 16;  // the kernels' M template range (config.cpp's infeasible)
}

std::optional<View> view_of(const Problem& p) {
  if (p.M <= max_tokens) return View{p, false};
  if (p.layout != Layout::TN || p.N > max_tokens) return std::nullopt;
  Problem g = p;
  g.M = p.N, g.N = p.M;
  g.lda = p.ldb, g.ldb = p.lda;
  g.ldc = p.ldc;  // between tokens of y
  return View{g, true};
}

View require_view(const Problem& p) {
  if (std::optional<View> v = view_of(p)) return *v;
  throw Unsupported(fmt::format("the gemv family takes 1..16 tokens as M, or as N in TN, not {}", describe(p)));
}

Args view_args(const View& v, const Problem& p, const void* A, const void* B, void* C) {
  Args a;
  a.x = v.tokens_as_n ? B : A;
  a.ldx = v.problem.lda;
  a.w = v.tokens_as_n ? A : B;
  a.w_row_bytes = v.problem.ldb * element_bytes(p.dtype);
  a.out = C;
  a.ldc = p.ldc;
  return a;
}

}  // namespace tilewise::gemv
