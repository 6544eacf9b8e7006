#include "tune/contributions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

struct Speedups {
  std::vector<double> values;
  std::vector<std::string> ids;
  void add(double s, const std::string& id) {
    values.push_back(s);
    ids.push_back(id);
  }
};

Contribution summarize(std::string round, const Speedups& s) {
  Contribution c;
  c.round = std::move(round);
  c.cases = int(s.values.size());
  c.improved = int(std::count_if(s.values.begin(), s.values.end(), [](double v) { return v > 1; }));
  c.mean = std::accumulate(s.values.begin(), s.values.end(), 0.0) / double(s.values.size());
  c.median = receipt::median(s.values);
  double log_sum = 0;
  for (double v : s.values) log_sum += std::log(v);
  c.geomean = std::exp(log_sum / double(s.values.size()));
  const size_t best = size_t(std::max_element(s.values.begin(), s.values.end()) - s.values.begin());
  c.best = s.values[best];
  c.best_case = s.ids[best];
  return c;
}

}  // namespace

std::vector<Contribution> contributions(const std::vector<CaseResult>& cases) {
  std::vector<std::string> order;
  std::vector<Speedups> per_round;
  Speedups overall;
  for (const CaseResult& r : cases) {
    if (r.mode != "descent" || r.status != Status::finished || r.start_us <= 0 || r.rounds.empty()) continue;
    double entering = r.start_us;
    for (const Round& round : r.rounds) {
      auto at = std::find(order.begin(), order.end(), round.group);
      if (at == order.end()) {
        order.push_back(round.group);
        per_round.emplace_back();
        at = order.end() - 1;
      }
      per_round[size_t(at - order.begin())].add(entering / round.latency_us, r.c.id);
      entering = round.latency_us;
    }
    overall.add(r.start_us / entering, r.c.id);
  }
  std::vector<Contribution> out;
  for (size_t i = 0; i < order.size(); ++i) out.push_back(summarize(order[i], per_round[i]));
  if (!overall.values.empty()) out.push_back(summarize("all rounds", overall));
  return out;
}

std::string format_contributions(const std::vector<Contribution>& rows) {
  std::string out = fmt::format("{:<12} {:>8} {:>8} {:>8}   {:<40} {:>10}\n", "round", "mean", "median", "geomean", "best",
                                "improved");
  for (const Contribution& c : rows)
    out += fmt::format("{:<12} {:>7.3f}x {:>7.3f}x {:>7.3f}x   {:<40} {:>10}\n", c.round, c.mean, c.median, c.geomean,
                       fmt::format("{:.2f}x  {}", c.best, c.best_case), fmt::format("{} / {}", c.improved, c.cases));
  return out;
}

std::vector<std::string> rises(const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  for (const CaseResult& r : cases) {
    if (r.mode != "descent" || r.status != Status::finished) continue;
    double before = r.start_us;
    for (const Round& round : r.rounds) {
      // Going back to the warm start is no rise: the held configuration is then where the case began.
      const bool back_to_start = round.group == kConfirmRound && round.adopted;
      if (!back_to_start && round.latency_us > before)
        out.push_back(fmt::format("{}: round {} {:.2f} us after {:.2f} us", r.c.id, round.group, round.latency_us, before));
      before = round.latency_us;
    }
  }
  return out;
}

std::vector<std::string> went_back(const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  for (const CaseResult& r : cases)
    if (r.mode == "descent" && !r.rounds.empty() && r.rounds.back().group == kConfirmRound && r.rounds.back().adopted)
      out.push_back(r.c.id);
  return out;
}

Retimed retimed(const std::vector<CaseResult>& cases) {
  Retimed out;
  std::vector<double> ratios;
  for (const CaseResult& r : cases) {
    if (r.mode != "descent") continue;
    for (size_t i = 0; i + 1 < r.rounds.size(); ++i) {
      const Round& won = r.rounds[i];
      const Round& next = r.rounds[i + 1];
      if (!won.adopted || won.winner_us.empty() || next.incumbent_us.empty() || next.incumbent != won.winner) continue;
      const double ratio = receipt::median(next.incumbent_us) / receipt::median(won.winner_us);
      ratios.push_back(ratio);
      out.slower_5pct += ratio > 1.05;
    }
  }
  out.adoptions = int(ratios.size());
  if (!ratios.empty()) out.median = receipt::median(ratios);
  return out;
}

}  // namespace tilewise::tune
