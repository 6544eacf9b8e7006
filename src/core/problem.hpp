#pragma once
// The problem of the public API (include/tilewise/problem.hpp), and what the tool adds: its identity, its traffic
// and work, and its JSON form in suites, receipts and databases.
#include <nlohmann/json_fwd.hpp>

#include <compare>
#include <cstdint>

#include "tilewise/problem.hpp"

namespace tilewise {

// The least traffic the problem needs: each operand read once, C written once (tight, padding excluded).
int64_t min_traffic_bytes(const Problem& p);
double flops(const Problem& p);

// What makes two problems one problem, whatever they are named (or whichever receipt or suite holds them): the GEMM
// itself, its sizes, dtype, layout and leading dimensions. A suite's orientation (nn.Linear's or column-major) names
// how a model reaches the GEMM, not another GEMM, so it is not part of it. Ordered, for sets and maps.
struct ProblemIdentity {
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::bf16;
  Layout layout = Layout::TN;
  int64_t lda = 0, ldb = 0, ldc = 0;
  auto operator<=>(const ProblemIdentity&) const = default;
};
ProblemIdentity problem_identity(const Problem& p);

void to_json(nlohmann::json& j, const Problem& p);
void from_json(const nlohmann::json& j, Problem& p);

}  // namespace tilewise
