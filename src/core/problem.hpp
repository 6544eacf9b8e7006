#pragma once
// The problem of the public API (include/tilewise/problem.hpp), and what the tool adds: its traffic and work, and its
// JSON form in suites, receipts and databases.
#include <nlohmann/json_fwd.hpp>

#include "tilewise/problem.hpp"

namespace tilewise {

// The least traffic the problem needs: each operand read once, C written once (tight, padding excluded).
int64_t min_traffic_bytes(const Problem& p);
double flops(const Problem& p);

void to_json(nlohmann::json& j, const Problem& p);
void from_json(const nlohmann::json& j, Problem& p);

}  // namespace tilewise
