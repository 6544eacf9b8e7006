#include "report/headline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "receipt/derive.hpp"

namespace tilewise::report {

namespace {

struct Sums {
  std::string receipts;
  int cases = 0, best_cases = 0, faster = 0, slower = 0;
  double log_default = 0, log_best = 0;
  std::vector<double> tuning_s;
};

// receipt, suite, orientation, dtype, layout, unaligned (so aligned rows come first)
using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, bool>;

}  // namespace

std::string orientation_of(const receipt::Result& r) {
  const auto ends = [](const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(r.suite, "-linear") || ends(r.problem.name, "_lin") ? "nn.Linear" : "column-major";
}

bool aligned_ldc(const Problem& p) { return p.ldc % 8 == 0; }

std::vector<HeadlineRow> headline(const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                                  const std::string& arm, const std::string& baseline, const std::string& best,
                                  Grouping grouping) {
  const bool pooled = grouping == Grouping::by_orientation;
  std::map<Key, Sums> groups;
  for (const auto& [path, r] : receipts)
    for (const receipt::Result& res : r.results) {
      const receipt::ArmResult* a = receipt::timed_arm(res, arm, true);
      const receipt::ArmResult* d = receipt::timed_arm(res, baseline);
      if (!a || !d) continue;
      const Key key = pooled ? Key{"", "all", orientation_of(res), "all", "all", !aligned_ldc(res.problem)}
                             : Key{path, res.suite, orientation_of(res), to_string(res.problem.dtype),
                                   to_string(res.problem.layout), !aligned_ldc(res.problem)};
      Sums& s = groups[key];
      if (s.receipts.find(path) == std::string::npos) s.receipts += (s.receipts.empty() ? "" : ", ") + path;
      ++s.cases;
      s.log_default += std::log(*d->us_median / *a->us_median);
      const std::string claim = receipt::compare(*a, *d).claim;
      s.faster += claim == "faster";
      s.slower += claim == "slower";
      if (a->config.is_object() && a->config.contains("first_use"))
        s.tuning_s.push_back(a->config["first_use"].value("seconds", 0.0));
      if (const receipt::ArmResult* b = receipt::timed_arm(res, best)) {
        ++s.best_cases;
        s.log_best += std::log(*b->us_median / *a->us_median);
      }
    }
  std::vector<HeadlineRow> out;
  for (const auto& [key, s] : groups) {
    HeadlineRow row{s.receipts,     std::get<1>(key), std::get<2>(key), std::get<3>(key), std::get<4>(key),
                    !std::get<5>(key), s.cases,       std::exp(s.log_default / s.cases), 0, s.faster, s.slower};
    if (s.best_cases) row.vs_best = std::exp(s.log_best / s.best_cases);
    if (!s.tuning_s.empty()) {
      row.tuning_median_s = receipt::median(s.tuning_s);
      row.tuning_max_s = *std::max_element(s.tuning_s.begin(), s.tuning_s.end());
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::string headline_markdown(const std::vector<HeadlineRow>& rows, const std::string& arm) {
  const bool tuned = std::any_of(rows.begin(), rows.end(), [](const HeadlineRow& r) { return r.tuning_max_s > 0; });
  std::string out = fmt::format(
      "| suite | orientation | dtype | layout | ldc | cases | {0} vs cuBLASLt default | {0} vs cuBLASLt best | faster | "
      "slower |{1} receipt |\n|---|---|---|---|---|---|---|---|---|---|{2}---|\n",
      arm, tuned ? " first-use tuning s (median, max) |" : "", tuned ? "---|" : "");
  for (const HeadlineRow& r : rows) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {:.3f}x | {} | {} | {} |", r.suite.empty() ? "-" : r.suite,
                       r.orientation, r.dtype, r.layout,
                       r.aligned ? "aligned" : "not a multiple of 8 (cuBLASLt's alignment cliff)", r.cases, r.vs_default,
                       r.vs_best > 0 ? fmt::format("{:.3f}x", r.vs_best) : "-", r.faster, r.slower);
    if (tuned) out += r.tuning_max_s > 0 ? fmt::format(" {:.2f}, {:.2f} |", r.tuning_median_s, r.tuning_max_s) : " - |";
    out += fmt::format(" {} |\n", r.receipt);
  }
  return out;
}

}  // namespace tilewise::report
