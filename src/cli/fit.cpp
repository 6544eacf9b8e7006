#include "cli/fit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/rule_fit.hpp"
#include "receipt/check.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::cli {

namespace {

std::string rate_text(double rate) { return rate > 0 ? fmt::format("{:.2f}", rate) : "not taken (rate 0)"; }

std::string from_k_tiles(int min_k, double rate) {
  return rate > 0 && min_k > 0 ? fmt::format(" from {} k-tiles", min_k) : "";
}

std::string params_text(const sm90::RuleParams& p) {
  return fmt::format("rates 256x128 {:.2f}, 192x128 {:.2f}, 128x64 {:.2f}, 64x64 {:.2f} of 128x128; stream-K worth "
                     "{:.2f}; split-K worth {:.2f}, below {:.2f} of the grid; at least {} k-tiles a split piece; "
                     "swapped tiles {}; widths fitted to whole waves {} (two consumers), {} (one{})",
                     p.rates[0], p.rates[1], p.rates[3], p.rates[4], p.stream_k_worth, p.split_k_worth,
                     p.split_k_below, p.min_k_tiles_per_piece, rate_text(p.swapped_rate), rate_text(p.fitted_rate),
                     rate_text(p.fitted_one_consumer_rate),
                     from_k_tiles(p.fitted_one_consumer_min_k_tiles, p.fitted_one_consumer_rate));
}

}  // namespace

int run_fit(const std::vector<std::string>& receipts, bool hold_swapped) {
  std::vector<sm90::SweepCase> cases;
  int sm_count = 0;
  for (const auto& [path, r] : receipt::read_valid_receipts(receipts, "a fit takes valid receipts only")) {
    if (sm_count && r.machine.sm_count != sm_count)
      throw Error(fmt::format("{}: measured on {} SMs, the other receipts on {}: one fit is for one machine", path,
                              r.machine.sm_count, sm_count));
    sm_count = r.machine.sm_count;
    const std::vector<sm90::SweepCase> mine = sm90::sweep_cases(r);
    if (mine.empty()) throw Error(fmt::format("{}: no sm90:sweep results to fit to", path));
    // A problem in several receipts is taken from the last: a later sweep re-times it with the rungs added since.
    for (const sm90::SweepCase& c : mine) {
      std::erase_if(cases, [&](const sm90::SweepCase& o) { return o.problem == c.problem; });
      cases.push_back(c);
    }
  }
  sm90::Limits limits;
  limits.sm_count = sm_count;
  // A late rung's rate is judged only where every problem that takes it had it timed: count the problems that take
  // a kind of rung whose sweep timed none of it, each problem's candidates listed once.
  auto is_swapped = [](const sm90::Config& k) { return k.swap; };
  auto is_one_consumer_width = [](const sm90::Config& k) {
    return k.consumers == 1 && sm90::is_fitted_width(k.block_m, k.swap);
  };
  int unswept_swapped = 0, unswept_one_consumer = 0;
  for (const sm90::SweepCase& c : cases) {
    const std::vector<sm90::Config> candidates = sm90::sweep_candidates(c.problem, limits);
    std::vector<sm90::Config> timed;
    for (const auto& [config, us] : c.us) timed.push_back(sm90::parse_config(config));
    auto unswept = [&](auto is_kind) {
      return std::any_of(candidates.begin(), candidates.end(), is_kind) &&
             std::none_of(timed.begin(), timed.end(), is_kind);
    };
    unswept_swapped += unswept(is_swapped);
    unswept_one_consumer += unswept(is_one_consumer_width);
  }
  const sm90::Fit now = sm90::evaluate(cases, sm90::RuleParams{}, limits);
  const sm90::Fit fit = sm90::fit_rule(cases, limits, hold_swapped);
  fmt::print("{:<48} {:>10} {:>10} {:>10}   fastest / fitted choice\n", "problem", "fastest us", "fitted", "current");
  for (size_t i = 0; i < fit.rows.size(); ++i) {
    const sm90::FitRow &f = fit.rows[i], &c = now.rows[i];
    fmt::print("{:<48} {:>10.2f} {:>+9.1f}% {:>+9.1f}%   {}{}\n", f.problem, f.fastest_us, 100 * f.error(),
               100 * c.error(), f.fastest, f.chosen == f.fastest ? "" : " / " + f.chosen);
  }
  auto summary = [](const sm90::Fit& f) {
    return fmt::format("mean {:.1f}%, worst {:.1f}%, rms {:.1f}% from the fastest ({})", 100 * f.errors.mean,
                       100 * f.errors.worst, 100 * f.errors.rms, params_text(f.params));
  };
  fmt::print("\ncurrent constants: {}\nfitted constants:  {}\n", summary(now), summary(fit));
  fmt::print("over {} problems from {} receipt(s), {} SMs\n", cases.size(), receipts.size(), sm_count);
  for (auto [n, what] : {std::pair{unswept_swapped, "swapped tiles"},
                         std::pair{unswept_one_consumer, "one consumer's fitted widths"}})
    if (n)
      fmt::print("{} unrated: {} of these problems take them but their sweep timed none (re-time them with "
                 "sm90:sweep)\n", what, n);
  return 0;
}

}  // namespace tilewise::cli
