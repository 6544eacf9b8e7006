#include "report/headline.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "receipt/derive.hpp"

namespace tilewise::report {

namespace {

// `name` exactly, or with `prefix` also `name:anything` ("selected" takes "selected:tune:db.json").
const receipt::ArmResult* timed(const receipt::Result& r, const std::string& name, bool prefix) {
  for (const receipt::ArmResult& a : r.arms)
    if ((a.arm == name || (prefix && a.arm.rfind(name + ":", 0) == 0)) && a.correct && a.us_median) return &a;
  return nullptr;
}

struct Sums {
  int cases = 0, best_cases = 0, faster = 0, slower = 0;
  double log_default = 0, log_best = 0;
};

}  // namespace

std::string orientation_of(const receipt::Result& r) {
  const auto ends = [](const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(r.suite, "-linear") || ends(r.problem.name, "_lin") ? "nn.Linear" : "column-major";
}

std::vector<HeadlineRow> headline(const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                                  const std::string& arm, const std::string& baseline, const std::string& best) {
  std::vector<HeadlineRow> out;
  for (const auto& [path, r] : receipts) {
    std::map<std::tuple<std::string, std::string, DType, Layout>, Sums> groups;
    for (const receipt::Result& res : r.results) {
      const receipt::ArmResult* a = timed(res, arm, true);
      const receipt::ArmResult* d = timed(res, baseline, false);
      if (!a || !d) continue;
      Sums& s = groups[{res.suite, orientation_of(res), res.problem.dtype, res.problem.layout}];
      ++s.cases;
      s.log_default += std::log(*d->us_median / *a->us_median);
      const std::string claim = receipt::compare(*a, *d).claim;
      s.faster += claim == "faster";
      s.slower += claim == "slower";
      if (const receipt::ArmResult* b = timed(res, best, false)) {
        ++s.best_cases;
        s.log_best += std::log(*b->us_median / *a->us_median);
      }
    }
    for (const auto& [key, s] : groups) {
      HeadlineRow row{path, std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), s.cases,
                      std::exp(s.log_default / s.cases), 0, s.faster, s.slower};
      if (s.best_cases) row.vs_best = std::exp(s.log_best / s.best_cases);
      out.push_back(std::move(row));
    }
  }
  return out;
}

std::string headline_markdown(const std::vector<HeadlineRow>& rows, const std::string& arm) {
  std::string out = fmt::format(
      "| suite | orientation | dtype | layout | cases | {0} vs cuBLASLt default | {0} vs cuBLASLt best | faster | "
      "slower | receipt |\n|---|---|---|---|---|---|---|---|---|---|\n",
      arm);
  for (const HeadlineRow& r : rows)
    out += fmt::format("| {} | {} | {} | {} | {} | {:.3f}x | {} | {} | {} | {} |\n", r.suite.empty() ? "-" : r.suite,
                       r.orientation, to_string(r.dtype), to_string(r.layout), r.cases, r.vs_default,
                       r.vs_best > 0 ? fmt::format("{:.3f}x", r.vs_best) : "-", r.faster, r.slower, r.receipt);
  return out;
}

}  // namespace tilewise::report
