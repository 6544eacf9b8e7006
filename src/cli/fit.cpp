#include "cli/fit.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/rule_fit.hpp"
#include "receipt/check.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::cli {

namespace {

std::string params_text(const sm90::RuleParams& p) {
  return fmt::format("rates 128x64 {:.2f}, 64x64 {:.2f}; stream-K worth {:.2f}; split-K worth {:.2f}, at least {} "
                     "k-tiles a piece, below {:.2f} of the grid",
                     p.rates[3], p.rates[4], p.stream_k_worth, p.split_k_worth, p.min_k_tiles_per_piece, p.split_k_below);
}

}  // namespace

int run_fit(const std::vector<std::string>& receipts) {
  std::vector<sm90::SweepCase> cases;
  int sm_count = 0;
  for (const std::string& path : receipts) {
    const receipt::FileVerdict verdict = receipt::check_file(path);
    if (!verdict.valid)
      throw Error(fmt::format("{}: not a valid receipt ({}); a fit takes valid receipts only", path,
                              verdict.problems.empty() ? "unreadable" : verdict.problems.front()));
    const receipt::Receipt r = receipt::read_file(path);
    if (sm_count && r.machine.sm_count != sm_count)
      throw Error(fmt::format("{}: measured on {} SMs, the other receipts on {}: one fit is for one machine", path,
                              r.machine.sm_count, sm_count));
    sm_count = r.machine.sm_count;
    const size_t before = cases.size();
    for (const receipt::Result& result : r.results)
      for (const receipt::ArmResult& arm : result.arms) {
        if (arm.arm != "sm90:sweep") continue;
        sm90::SweepCase c{result.problem, {}};
        for (const receipt::Candidate& cand : arm.candidates)
          if (cand.correct && cand.us) c.us[cand.config.at("config").get<std::string>()] = *cand.us;
        cases.push_back(std::move(c));
      }
    if (cases.size() == before) throw Error(fmt::format("{}: no sm90:sweep results to fit to", path));
  }
  sm90::Limits limits;
  limits.sm_count = sm_count;
  const sm90::Fit now = sm90::evaluate(cases, sm90::RuleParams{}, limits);
  const sm90::Fit fit = sm90::fit_rule(cases, limits);
  fmt::print("{:<48} {:>10} {:>10} {:>10}   fastest / fitted choice\n", "problem", "fastest us", "fitted", "current");
  for (size_t i = 0; i < fit.rows.size(); ++i) {
    const sm90::FitRow &f = fit.rows[i], &c = now.rows[i];
    fmt::print("{:<48} {:>10.2f} {:>+9.1f}% {:>+9.1f}%   {}{}\n", f.problem, f.fastest_us, 100 * f.error(),
               100 * c.error(), f.fastest, f.chosen == f.fastest ? "" : " / " + f.chosen);
  }
  fmt::print("\ncurrent constants: mean {:.1f}%, worst {:.1f}% from the fastest ({})\n", 100 * now.mean_error,
             100 * now.worst_error, params_text(now.params));
  fmt::print("fitted constants:  mean {:.1f}%, worst {:.1f}% from the fastest ({})\n", 100 * fit.mean_error,
             100 * fit.worst_error, params_text(fit.params));
  fmt::print("over {} problems from {} receipt(s), {} SMs\n", cases.size(), receipts.size(), sm_count);
  return 0;
}

}  // namespace tilewise::cli
