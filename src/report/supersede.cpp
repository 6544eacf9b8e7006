#include "report/supersede.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "report/compare.hpp"

namespace tilewise::report {

namespace {

using ProblemId = std::tuple<ProblemKey, int64_t, int64_t, int64_t>;  // the problem and its lda, ldb, ldc
using Measurement = std::tuple<std::string, std::string, bool, std::set<std::string>, std::set<std::string>,
                               std::set<ProblemId>>;  // tool, GPU, cold, suites, arms, problems

Measurement measurement_of(const receipt::Receipt& r) {
  const std::vector<std::string> suites = suites_of(r.command);
  Measurement m{r.tool.name, r.machine.gpu, r.protocol.cold, {suites.begin(), suites.end()},
                {r.protocol.arms.begin(), r.protocol.arms.end()}, {}};
  for (const receipt::Result& res : r.results)
    std::get<5>(m).insert({key_of(res.problem), res.problem.lda, res.problem.ldb, res.problem.ldc});
  return m;
}

}  // namespace

Recency recency(const receipt::Receipt& r, size_t place) {
  return {utc_seconds(r.created).value_or(std::numeric_limits<int64_t>::min()), place};
}

std::vector<std::optional<size_t>> superseded_by(const std::vector<PageReceipt>& receipts) {
  const auto at = [&](size_t i) { return recency(receipts[i].receipt, i); };
  std::map<Measurement, std::vector<size_t>> same;
  for (size_t i = 0; i < receipts.size(); ++i)
    if (!receipts[i].receipt.results.empty()) same[measurement_of(receipts[i].receipt)].push_back(i);
  std::vector<std::optional<size_t>> out(receipts.size());
  for (const auto& [measurement, members] : same) {
    std::optional<size_t> newest;
    for (size_t i : members)
      if (receipts[i].verdict.valid && (!newest || at(i) > at(*newest))) newest = i;
    if (!newest) continue;
    for (size_t i : members)
      if (at(i) < at(*newest)) out[i] = newest;
  }
  return out;
}

}  // namespace tilewise::report
