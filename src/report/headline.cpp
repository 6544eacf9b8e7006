#include "report/headline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "core/sweep.hpp"
#include "receipt/derive.hpp"
#include "report/supersede.hpp"

namespace tilewise::report {

namespace {

// Sums of logs, for geometric means: a ratio and its range over the repeats.
struct LogRatio {
  int n = 0;
  double mid = 0, low = 0, high = 0;
  void add(const receipt::ArmResult& arm, const receipt::ArmResult& other) {
    ++n;
    mid += std::log(*other.us_median / *arm.us_median);
    low += std::log(*other.us_min / *arm.us_max);
    high += std::log(*other.us_max / *arm.us_min);
  }
};

struct Sums {
  std::vector<std::string> receipts;
  int faster = 0, slower = 0;
  LogRatio vs_default, vs_best;
  std::vector<double> tuning_s;
};

// Whether an arm carries the whole of its range, as a ratio needs (a tampered receipt may lack part of it).
bool ranged(const receipt::ArmResult* a) { return a && a->us_min && a->us_max; }

// The result's arm the headline measures: the named one, or the fastest by median of those named; null where none ran.
const receipt::ArmResult* measured_arm(const receipt::Result& res, const HeadlineArm& arm) {
  const receipt::ArmResult* fastest = nullptr;
  for (const std::string& name : arm.names)
    if (const receipt::ArmResult* a = receipt::timed_arm(res, name, true);
        ranged(a) && (!fastest || *a->us_median < *fastest->us_median))
      fastest = a;
  return fastest;
}

// receipt, suite, orientation, dtype, layout, sweep class, token band, unaligned (so aligned rows come first)
using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string, bool>;

// The sweep problem a result ran, drawn again from its name; empty where the name or the sizes say it is not one.
std::optional<SweepProblem> sweep_problem_of(const receipt::Result& res) {
  std::optional<SweepProblem> s = sweep_problem_named(res.problem.name);
  if (s && (s->M != res.problem.M || s->N != res.problem.N || s->K != res.problem.K)) return std::nullopt;
  return s;
}

}  // namespace

HeadlineArm HeadlineArm::fastest_of(std::vector<std::string> names) {
  if (names.size() < 2)
    throw Error(fmt::format("the fastest of {} arm{}: name at least two", names.size(), names.size() == 1 ? "" : "s"));
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) throw Error("the fastest of arms: an empty arm name");
    if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      throw Error(fmt::format("the fastest of arms: '{}' given twice", names[i]));
  }
  HeadlineArm arm(names.front());
  arm.names = std::move(names);
  return arm;
}

std::string HeadlineArm::label() const {
  return fastest() ? fmt::format("fastest of {}", fmt::join(names, ", ")) : names.front();
}

std::string orientation_of(const receipt::Result& r) {
  return std::string(to_string(tilewise::orientation_of(r.suite, r.problem.name)));
}

bool aligned_ldc(const Problem& p) { return p.ldc % 8 == 0; }

std::vector<HeadlineRow> headline(const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                                  const HeadlineArm& arm, const std::string& baseline, const std::string& best,
                                  Grouping grouping) {
  if (!arm.fastest() && arm.names.front() == baseline)
    throw Error(fmt::format("the arm and its baseline are both '{}': an arm against itself says nothing", baseline));
  for (const auto& [path, r] : receipts)  // a geomean over two GPUs is neither's figure
    if (r.machine.gpu != receipts.front().second.machine.gpu)
      throw Error(fmt::format("{} was measured on {} and {} on {}: give one GPU's receipts at a time",
                              receipts.front().first, receipts.front().second.machine.gpu, path, r.machine.gpu));
  if (arm.fastest()) {  // an arm no receipt has would never be the fastest: a misspelling, named as --arm's is
    std::set<std::string> arms;
    for (const auto& [path, r] : receipts) arms.merge(receipt::arm_names(r));
    for (const std::string& name : arm.names)
      if (std::none_of(arms.begin(), arms.end(),
                       [&](const std::string& a) { return a == name || receipt::has_options_of(a, name); }))
        throw Error(fmt::format("no receipt has the arm {}, one of the {}; their arms: {}", name, arm.label(),
                                fmt::join(arms, ", ")));
  }
  // Each result's row, where it is a case (both arms timed, and of the sweep under by_sweep_class).
  std::vector<std::vector<std::optional<Key>>> keys(receipts.size());
  for (size_t i = 0; i < receipts.size(); ++i)
    for (const receipt::Result& res : receipts[i].second.results) {
      std::optional<Key>& key = keys[i].emplace_back();
      if (!ranged(measured_arm(res, arm)) || !ranged(receipt::timed_arm(res, baseline))) continue;
      const bool unaligned = !aligned_ldc(res.problem);
      const std::string dtype(to_string(res.problem.dtype)), layout(to_string(res.problem.layout));
      const std::string orientation = orientation_of(res);
      key = Key{receipts[i].first, res.suite, orientation, dtype, layout, "", "", unaligned};
      if (grouping == Grouping::by_orientation) key = Key{"", "all", orientation, "all", "all", "", "", unaligned};
      if (grouping == Grouping::by_dtype) key = Key{"", res.suite, orientation, dtype, "all", "", "", unaligned};
      if (grouping == Grouping::by_sweep_class) {
        const std::optional<SweepProblem> s = sweep_problem_of(res);
        if (s) key = Key{"", "all", orientation, "all", "all", s->alignment, token_band(*s), unaligned};
        else key.reset();
      }
    }
  // A problem counts once in a row: a copy of a receipt, a re-run or an overlapping run measured it again, and the
  // most recent of them counts, as a newer receipt supersedes an older one on the report page. Its name is part of
  // it, as there: two of a suite's cases may share a shape (two models' layers), and each is a case.
  std::vector<size_t> newest_first(receipts.size());
  for (size_t i = 0; i < receipts.size(); ++i) newest_first[i] = i;
  std::sort(newest_first.begin(), newest_first.end(), [&](size_t a, size_t b) {
    return recency(receipts[a].second, a) > recency(receipts[b].second, b);
  });
  std::map<Key, std::set<std::pair<std::string, ProblemIdentity>>> counted;
  std::map<Key, int> repeated;
  for (size_t i : newest_first)
    for (size_t j = 0; j < keys[i].size(); ++j)
      if (const Problem& p = receipts[i].second.results[j].problem;
          keys[i][j] && !counted[*keys[i][j]].insert({p.name, problem_identity(p)}).second) {
        ++repeated[*keys[i][j]];
        keys[i][j].reset();
      }

  std::map<Key, Sums> groups;
  for (size_t i = 0; i < receipts.size(); ++i) {
    const auto& [path, r] = receipts[i];
    for (size_t j = 0; j < r.results.size(); ++j) {
      if (!keys[i][j]) continue;
      const receipt::Result& res = r.results[j];
      const receipt::ArmResult* a = measured_arm(res, arm);
      const receipt::ArmResult* d = receipt::timed_arm(res, baseline);
      Sums& s = groups[*keys[i][j]];
      if (std::find(s.receipts.begin(), s.receipts.end(), path) == s.receipts.end()) s.receipts.push_back(path);
      s.vs_default.add(*a, *d);
      const std::string claim = receipt::compare(*a, *d).claim;
      s.faster += claim == "faster";
      s.slower += claim == "slower";
      if (a->config.is_object() && a->config.contains("first_use"))
        s.tuning_s.push_back(a->config["first_use"].value("seconds", 0.0));
      // One arm that is the best arm itself has no figure against it; a fastest-of arm that chose it is 1x there.
      if (const receipt::ArmResult* b = receipt::timed_arm(res, best); ranged(b) && (b != a || arm.fastest()))
        s.vs_best.add(*a, *b);
    }
  }
  std::vector<HeadlineRow> out;
  for (const auto& [key, s] : groups) {
    HeadlineRow row;
    for (const std::string& path : s.receipts) row.receipt += (row.receipt.empty() ? "" : ", ") + path;
    std::tie(std::ignore, row.suite, row.orientation, row.dtype, row.layout, row.sweep_class, row.tokens, std::ignore) =
        key;
    row.aligned = !std::get<7>(key);
    row.cases = s.vs_default.n;
    const auto mean = [](double log_sum, int n) { return n ? std::exp(log_sum / n) : 0.0; };
    row.vs_default = mean(s.vs_default.mid, s.vs_default.n);
    row.vs_default_low = mean(s.vs_default.low, s.vs_default.n);
    row.vs_default_high = mean(s.vs_default.high, s.vs_default.n);
    row.vs_best = mean(s.vs_best.mid, s.vs_best.n);
    row.vs_best_low = mean(s.vs_best.low, s.vs_best.n);
    row.vs_best_high = mean(s.vs_best.high, s.vs_best.n);
    row.faster = s.faster;
    row.slower = s.slower;
    row.repeated = repeated[key];
    if (!s.tuning_s.empty()) {
      row.tuning_median_s = receipt::median(s.tuning_s);
      row.tuning_max_s = *std::max_element(s.tuning_s.begin(), s.tuning_s.end());
    }
    out.push_back(std::move(row));
  }
  return out;
}

namespace {

// A column's baseline as the table names it: cuBLASLt's arms by what they are, any other arm by its name.
std::string baseline_label(const std::string& name) {
  static const std::map<std::string, std::string> vendor{{"cublaslt-default", "cuBLASLt default"},
                                                         {"cublaslt", "cuBLASLt best"}};
  const auto it = vendor.find(name);
  return it == vendor.end() ? name : it->second;
}

}  // namespace

std::string headline_markdown(const std::vector<HeadlineRow>& rows, const std::string& arm, const std::string& baseline,
                              const std::string& best) {
  const bool tuned = std::any_of(rows.begin(), rows.end(), [](const HeadlineRow& r) { return r.tuning_max_s > 0; });
  const bool by_class = std::any_of(rows.begin(), rows.end(), [](const HeadlineRow& r) { return !r.sweep_class.empty(); });
  std::string out = fmt::format(
      "| {3} | orientation | {4} | ldc | cases | {0} vs {6} | {0} vs {7} | faster | "
      "slower |{1} receipt |\n|---|---|---|---|---|---|---|---|---|{5}{2}---|\n",
      arm, tuned ? " first-use tuning s (median, max) |" : "", tuned ? "---|" : "", by_class ? "tokens" : "suite",
      by_class ? "alignment class" : "dtype | layout", by_class ? "" : "---|", baseline_label(baseline),
      baseline_label(best));
  for (const HeadlineRow& r : rows) {
    const std::string first = by_class ? r.tokens : r.suite.empty() ? "-" : r.suite;
    const std::string kind = by_class ? r.sweep_class : fmt::format("{} | {}", r.dtype, r.layout);
    out += fmt::format("| {} | {} | {} | {} | {} | {:.3f}x | {} | {} | {} |", first, r.orientation, kind,
                       r.aligned ? "aligned" : "not a multiple of 8 (cuBLASLt's alignment cliff)", r.cases, r.vs_default,
                       r.vs_best > 0 ? fmt::format("{:.3f}x", r.vs_best) : "-", r.faster, r.slower);
    if (tuned) out += r.tuning_max_s > 0 ? fmt::format(" {:.2f}, {:.2f} |", r.tuning_median_s, r.tuning_max_s) : " - |";
    out += fmt::format(" {} |\n", r.receipt);
  }
  return out;
}

}  // namespace tilewise::report
