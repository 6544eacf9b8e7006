#include "report/current.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "report/compare.hpp"

namespace tilewise::report {

namespace {

constexpr const char* baseline_arm = "cublaslt-default";
constexpr const char* best_arm = "cublaslt";

bool selected_family(const std::string& arm) { return arm == "selected" || arm.starts_with("selected:"); }

std::vector<HeadlineRow> rows_of(const std::vector<const PageReceipt*>& receipts, Mode mode) {
  std::vector<std::pair<std::string, receipt::Receipt>> named;
  for (const PageReceipt* p : receipts) named.emplace_back(p->file, p->receipt);
  return headline(named, mode_arm(mode), baseline_arm, best_arm, Grouping::by_dtype);
}

// mode, GPU, suite, orientation, dtype, unaligned
using Key = std::tuple<Mode, std::string, std::string, std::string, std::string, bool>;
Key key_of(const CurrentRow& r) {
  return {r.mode, r.gpu, r.figures.suite, r.figures.orientation, r.figures.dtype, !r.figures.aligned};
}

using ProblemId = std::pair<ProblemKey, int64_t>;  // with ldc, which splits the rows
std::set<ProblemId> problems_of(const CurrentRow& row) {
  std::set<ProblemId> out;
  for (const PageReceipt* p : row.receipts)
    for (const receipt::Result& res : p->receipt.results)
      if (in_row(res, row)) out.insert({report::key_of(res.problem), res.problem.ldc});
  return out;
}

int64_t created(const PageReceipt* p) {
  return utc_seconds(p->receipt.created).value_or(std::numeric_limits<int64_t>::min());
}

bool intersect(const std::set<ProblemId>& a, const std::set<ProblemId>& b) {
  return std::any_of(a.begin(), a.end(), [&](const ProblemId& x) { return b.count(x) > 0; });
}

}  // namespace

const char* mode_arm(Mode m) { return m == Mode::defaults ? "selected" : "selected:tune"; }
const char* mode_title(Mode m) { return m == Mode::defaults ? "the library's defaults" : "first-use tuning"; }

std::vector<Eligible> eligible_receipts(const std::vector<PageReceipt>& receipts, const std::vector<bool>& superseded) {
  std::vector<Eligible> out;
  for (size_t i = 0; i < receipts.size(); ++i) {
    const receipt::Receipt& r = receipts[i].receipt;
    const auto& arms = r.protocol.arms;
    if (!receipts[i].verdict.valid || superseded[i] || r.tool.name != "tilewise" || !r.protocol.cold ||
        std::find(arms.begin(), arms.end(), baseline_arm) == arms.end() ||
        std::count_if(arms.begin(), arms.end(), selected_family) != 1)
      continue;
    const std::string& arm = *std::find_if(arms.begin(), arms.end(), selected_family);
    if (arm == "selected") out.push_back({&receipts[i], Mode::defaults});
    else if (arm.starts_with("selected:tune:")) out.push_back({&receipts[i], Mode::first_use});
  }
  return out;
}

bool in_row(const receipt::Result& res, const CurrentRow& row) {
  return res.suite == row.figures.suite && orientation_of(res) == row.figures.orientation &&
         to_string(res.problem.dtype) == row.figures.dtype && aligned_ldc(res.problem) == row.figures.aligned;
}

bool is_decode(const receipt::Result& res) {
  return (orientation_of(res) == "nn.Linear" ? res.problem.N : res.problem.M) <= 16;
}

CurrentHeadline current_headline(const std::vector<Eligible>& eligible) {
  std::map<Key, std::vector<CurrentRow>> candidates;  // each receipt's own rows
  for (const Eligible& e : eligible)
    for (HeadlineRow& figures : rows_of({e.receipt}, e.mode)) {
      CurrentRow row{e.mode, e.receipt->receipt.machine.gpu, std::move(figures), {e.receipt}};
      candidates[key_of(row)].push_back(std::move(row));
    }
  CurrentHeadline out;
  for (auto& [key, rows] : candidates) {
    std::stable_sort(rows.begin(), rows.end(), [](const CurrentRow& a, const CurrentRow& b) {
      return created(a.receipts[0]) > created(b.receipts[0]);
    });
    std::vector<std::pair<const PageReceipt*, std::set<ProblemId>>> kept;
    for (CurrentRow& row : rows) {
      const std::set<ProblemId> problems = problems_of(row);
      const auto newer =
          std::find_if(kept.begin(), kept.end(), [&](const auto& k) { return intersect(k.second, problems); });
      if (newer == kept.end()) {
        kept.emplace_back(row.receipts[0], problems);
        continue;
      }
      row.replaced_by = newer->first;
      out.earlier.push_back(std::move(row));
    }
    CurrentRow pooled{std::get<0>(key), std::get<1>(key), {}, {}};
    for (const auto& k : kept) pooled.receipts.push_back(k.first);
    for (HeadlineRow& figures : rows_of(pooled.receipts, pooled.mode))
      if (Key{pooled.mode, pooled.gpu, figures.suite, figures.orientation, figures.dtype, !figures.aligned} == key)
        pooled.figures = std::move(figures);
    out.rows.push_back(std::move(pooled));
  }
  return out;
}

}  // namespace tilewise::report
