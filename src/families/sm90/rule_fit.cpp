#include "families/sm90/rule_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

// The grid: the one-consumer rates, the worth of stream-K and split-K, the split-K piece floor and threshold. The
// two-consumer rates stay at 1 (they are the unit).
constexpr double kRate128x64[] = {0.7, 0.76, 0.82, 0.88, 0.94, 1.0};
constexpr double kRate64x64[] = {0.3, 0.4, 0.5, 0.6, 0.7};
constexpr double kStreamKWorth[] = {0.8, 0.84, 0.88, 0.92, 0.96};
constexpr double kSplitKWorth[] = {0.7, 0.75, 0.8, 0.85, 0.9, 0.95};
constexpr int kMinKTiles[] = {8, 12, 16, 24};
constexpr double kSplitKBelow[] = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8};

// How far a set lies from the defaults, to break ties toward what was measured before.
double distance(const RuleParams& a, const RuleParams& b) {
  double d = std::abs(a.stream_k_worth - b.stream_k_worth) + std::abs(a.split_k_worth - b.split_k_worth) +
             std::abs(a.split_k_below - b.split_k_below) + std::abs(a.min_k_tiles_per_piece - b.min_k_tiles_per_piece) / 16.0;
  for (int i = 0; i < 5; ++i) d += std::abs(a.rates[i] - b.rates[i]);
  return d;
}

}  // namespace

Fit evaluate(const std::vector<SweepCase>& cases, const RuleParams& params, const Limits& limits) {
  Fit fit;
  fit.params = params;
  for (const SweepCase& c : cases) {
    if (c.us.empty()) throw Error(fmt::format("sweep: {} has no timed candidate", describe(c.problem)));
    FitRow row;
    row.problem = describe(c.problem);
    const auto fastest = std::min_element(c.us.begin(), c.us.end(), [](auto& a, auto& b) { return a.second < b.second; });
    row.fastest = fastest->first, row.fastest_us = fastest->second;
    row.chosen = to_string(first_rule(c.problem, limits, params));
    const auto chosen = c.us.find(row.chosen);
    if (chosen == c.us.end())
      throw Error(fmt::format("sweep: the rule's choice for {} ({}) was not measured", row.problem, row.chosen));
    row.chosen_us = chosen->second;
    fit.mean_error += row.error() / double(cases.size());
    fit.worst_error = std::max(fit.worst_error, row.error());
    fit.rows.push_back(std::move(row));
  }
  return fit;
}

Fit fit_rule(const std::vector<SweepCase>& cases, const Limits& limits) {
  const RuleParams defaults;
  std::optional<Fit> best;
  std::string last_error;
  auto better = [&](const Fit& a, const Fit& b) {
    if (std::abs(a.mean_error - b.mean_error) > 1e-12) return a.mean_error < b.mean_error;
    if (std::abs(a.worst_error - b.worst_error) > 1e-12) return a.worst_error < b.worst_error;
    return distance(a.params, defaults) < distance(b.params, defaults);
  };
  RuleParams p = defaults;
  for (double r3 : kRate128x64)
    for (double r4 : kRate64x64)
      for (double sk : kStreamKWorth)
        for (double split_worth : kSplitKWorth)
          for (int min_k : kMinKTiles)
            for (double below : kSplitKBelow) {
              p.rates[3] = r3, p.rates[4] = r4, p.stream_k_worth = sk, p.split_k_worth = split_worth;
              p.min_k_tiles_per_piece = min_k, p.split_k_below = below;
              try {
                Fit f = evaluate(cases, p, limits);
                if (!best || better(f, *best)) best = std::move(f);
              } catch (const Error& e) {  // a set whose choice was not measured cannot be judged
                last_error = e.what();
              }
            }
  if (!best) throw Error("sweep: no parameter set's choices were all measured (" + last_error + ")");
  return *best;
}

}  // namespace tilewise::sm90
