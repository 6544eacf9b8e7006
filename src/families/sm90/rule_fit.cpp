#include "families/sm90/rule_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

// The grid: every rate but 128x128's (the unit), the worth of stream-K and split-K, the split piece floor and the
// split-K threshold.
constexpr double kRate256x128[] = {0.92, 0.96, 1.0, 1.04};
constexpr double kRate192x128[] = {0.96, 1.0, 1.04};
constexpr double kRate128x64[] = {0.76, 0.82, 0.88, 0.94, 1.0};
constexpr double kRate64x64[] = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
constexpr double kStreamKWorth[] = {0.8, 0.84, 0.88, 0.92, 0.96, 1.0};
constexpr double kSplitKWorth[] = {0.75, 0.8, 0.85, 0.9, 0.95};
constexpr int kMinKTiles[] = {8, 16, 24};
constexpr double kSplitKBelow[] = {0.3, 0.5, 0.7};
// Swapped tiles' and fitted widths' rates, scanned once the grid has fitted the rest (0: the rule does not take them).
// One consumer's fitted widths: from the ladder's 64x64 (0.5) to a little past its 128x64 (0.88).
constexpr double kSwappedRate[] = {0.0, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
constexpr double kFittedRate[] = {0.0, 0.8, 0.84, 0.88, 0.92, 0.96, 1.0};
constexpr double kFittedOneConsumerRate[] = {0.0, 0.5, 0.56, 0.62, 0.68, 0.74, 0.8, 0.86, 0.92};
// The fewest k-tiles a problem needs before they are taken: from any to 24 (1536 of 16-bit K).
constexpr int kFittedOneConsumerMinKTiles[] = {0, 8, 12, 16, 24};

// How far a set lies from the defaults, to break ties toward what was measured before.
double distance(const RuleParams& a, const RuleParams& b) {
  double d = std::abs(a.stream_k_worth - b.stream_k_worth) + std::abs(a.split_k_worth - b.split_k_worth) +
             std::abs(a.split_k_below - b.split_k_below) +
             std::abs(a.min_k_tiles_per_piece - b.min_k_tiles_per_piece) / 16.0 +
             std::abs(a.swapped_rate - b.swapped_rate) + std::abs(a.fitted_rate - b.fitted_rate) +
             std::abs(a.fitted_one_consumer_rate - b.fitted_one_consumer_rate) +
             std::abs(a.fitted_one_consumer_min_k_tiles - b.fitted_one_consumer_min_k_tiles) / 16.0;
  for (int i = 0; i < 5; ++i) d += std::abs(a.rates[i] - b.rates[i]);
  return d;
}

// The sweep, with each problem's fastest time and the time of every tile choice looked up once: completing a choice
// into a configuration is what a grid of many parameter sets would otherwise repeat.
class Judge {
  using Timed = std::map<std::string, double>::const_iterator;  // a configuration and its time

 public:
  Judge(const std::vector<SweepCase>& cases, const Limits& limits) : cases_(cases), limits_(limits) {
    for (const SweepCase& c : cases) {
      if (c.us.empty()) throw Error(fmt::format("sweep: {} has no timed candidate", describe(c.problem)));
      fastest_.push_back(std::min_element(c.us.begin(), c.us.end(),
                                          [](auto& a, auto& b) { return a.second < b.second; }));
    }
    chosen_.resize(cases.size());
  }

  // How far `params` lands from the fastest; throws Error naming the first problem whose choice was not measured.
  Errors errors(const RuleParams& params) { return summarize(params, nullptr); }

  Fit fit(const RuleParams& params) {
    Fit f;
    f.params = params;
    f.errors = summarize(params, &f.rows);
    return f;
  }

 private:
  // The errors of `params`, and where `rows` is given each problem's row.
  Errors summarize(const RuleParams& params, std::vector<FitRow>* rows) {
    Errors out;
    for (size_t i = 0; i < cases_.size(); ++i) {
      const TileChoice choice = choose_tile(cases_[i].problem, limits_, params);
      const auto chosen = measured(i, choice);
      const double chosen_us = chosen->second, e = chosen_us / fastest_[i]->second - 1;
      out.mean += e / double(cases_.size());
      out.rms += e * e / double(cases_.size());
      out.worst = std::max(out.worst, e);
      if (rows)  // the strings only for the rows shown, not for every set the grid judges
        rows->push_back(
            {describe(cases_[i].problem), fastest_[i]->first, chosen->first, fastest_[i]->second, chosen_us});
    }
    out.rms = std::sqrt(out.rms);
    return out;
  }

  // The sweep's entry for `choice`: the configuration as the rule launches it, or as receipts before the launch rule
  // timed it (no programmatic launch). Throws Error naming the problem when neither was measured.
  Timed measured(size_t i, const TileChoice& choice) {
    auto [slot, fresh] = chosen_[i].try_emplace(choice, cases_[i].us.end());
    if (fresh) {
      const Config plain = complete(cases_[i].problem, limits_, choice);
      const std::string config = to_string(launched(cases_[i].problem, limits_, plain));
      auto found = cases_[i].us.find(config);
      if (found == cases_[i].us.end()) found = cases_[i].us.find(to_string(plain));
      if (found == cases_[i].us.end()) {
        chosen_[i].erase(slot);
        throw Error(fmt::format("sweep: the rule's choice for {} ({}) was not measured", describe(cases_[i].problem),
                                config));
      }
      slot->second = found;
    }
    return slot->second;
  }

  const std::vector<SweepCase>& cases_;
  Limits limits_;
  std::vector<Timed> fastest_;
  std::vector<std::map<TileChoice, Timed>> chosen_;
};

}  // namespace

std::vector<SweepCase> sweep_cases(const receipt::Receipt& r) {
  std::vector<SweepCase> cases;
  for (const receipt::Result& result : r.results)
    for (const receipt::ArmResult& arm : result.arms) {
      if (arm.arm != "sm90:sweep") continue;
      SweepCase c{result.problem, {}};
      for (const receipt::Candidate& cand : arm.candidates)
        if (cand.correct && cand.us) c.us[cand.config.at("config").get<std::string>()] = *cand.us;
      cases.push_back(std::move(c));
    }
  return cases;
}

Fit evaluate(const std::vector<SweepCase>& cases, const RuleParams& params, const Limits& limits) {
  return Judge(cases, limits).fit(params);
}

Fit fit_rule(const std::vector<SweepCase>& cases, const Limits& limits, bool hold_swapped) {
  const RuleParams defaults;
  Judge judge(cases, limits);
  std::optional<RuleParams> best;
  Errors best_errors;
  std::string last_error;
  // The least root-mean-square error (a large miss weighs more than several small ones), then the set nearest the
  // defaults. A set whose choice was not measured cannot be judged.
  auto consider = [&](const RuleParams& p) {
    try {
      const Errors e = judge.errors(p);
      if (!best || e.rms < best_errors.rms - 1e-12 ||
          (e.rms < best_errors.rms + 1e-12 && distance(p, defaults) < distance(*best, defaults)))
        best = p, best_errors = e;
    } catch (const Error& e) {
      last_error = e.what();
    }
  };
  // The grid runs with the late rates (below) at 0, so that a sweep from before their rungs can still be fitted.
  RuleParams p = defaults;
  p.fitted_rate = p.fitted_one_consumer_rate = 0;
  if (!hold_swapped) p.swapped_rate = 0;
  for (double r0 : kRate256x128)
    for (double r1 : kRate192x128)
      for (double r3 : kRate128x64)
        for (double r4 : kRate64x64)
          for (double sk : kStreamKWorth)
            for (double split_worth : kSplitKWorth)
              for (int min_k : kMinKTiles)
                for (double below : kSplitKBelow) {
                  p.rates[0] = r0, p.rates[1] = r1, p.rates[3] = r3, p.rates[4] = r4;
                  p.stream_k_worth = sk, p.split_k_worth = split_worth;
                  p.min_k_tiles_per_piece = min_k, p.split_k_below = below;
                  consider(p);
                }
  if (!best) throw Error("sweep: no parameter set's choices were all measured (" + last_error + ")");
  // Then the swapped tiles' rate and the fitted widths', each with the rest held: a sweep that did not time those
  // candidates leaves the rate at 0, since a rate that makes the rule take them there cannot be judged. The grid
  // stays as small as before those rungs.
  auto scan = [&](double RuleParams::*rate, std::span<const double> values) {
    RuleParams q = *best;
    for (double value : values) q.*rate = value, consider(q);
  };
  if (!hold_swapped) scan(&RuleParams::swapped_rate, kSwappedRate);
  scan(&RuleParams::fitted_rate, kFittedRate);
  // One consumer's widths: their rate and the fewest k-tiles they are taken from, together.
  RuleParams q = *best;
  for (int min_k : kFittedOneConsumerMinKTiles)
    for (double rate : kFittedOneConsumerRate)
      q.fitted_one_consumer_min_k_tiles = min_k, q.fitted_one_consumer_rate = rate, consider(q);
  return judge.fit(*best);
}

}  // namespace tilewise::sm90
