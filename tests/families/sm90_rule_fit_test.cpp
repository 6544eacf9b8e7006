// The first rule's constants and their fit to a sweep (src/families/sm90/heuristic.hpp, rule_fit.hpp), without a
// GPU: the rule only ever picks among rule_candidates, so a sweep of those judges any set of constants; a fit finds
// the constants a sweep favours and keeps the defaults where they already pick the fastest.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "expect_error.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/rule_fit.hpp"

namespace tilewise::sm90 {
namespace {

std::vector<Problem> suite_problems() {
  std::vector<Problem> out;
  for (const char* suite : {"/suites/llm24.txt", "/suites/square.txt"})
    for (const SuiteEntry& e : load_suite(std::string(TILEWISE_SOURCE_DIR) + suite).entries)
      for (DType d : {DType::bf16, DType::fp8_e4m3})
        for (Layout l : {Layout::TN, Layout::NN})
          if (d != DType::fp8_e4m3 || l == Layout::TN) out.push_back(make_problem(e.name, e.M, e.N, e.K, d, l));
  return out;
}

// Decode-like shapes take one narrow rung (src/families/sm90/heuristic.cpp).
bool is_narrow_shape(const Problem& p) { return p.M < 64 && p.layout == Layout::TN; }

RuleParams leaning_to_split_k() {
  RuleParams p;
  p.split_k_below = 0.7, p.split_k_worth = 0.95, p.min_k_tiles_per_piece = 8, p.rates[3] = 0.76;
  return p;
}

// A sweep in which the choice of `params` is the fastest on every problem (1 us against 1.2 for the rest).
std::vector<SweepCase> sweep_favouring(const RuleParams& params, const std::vector<Problem>& problems) {
  std::vector<SweepCase> out;
  for (const Problem& p : problems) {
    SweepCase c{p, {}};
    const std::string chosen = to_string(first_rule(p, {}, params));
    for (const Config& cand : rule_candidates(p)) c.us[to_string(cand)] = to_string(cand) == chosen ? 1.0 : 1.2;
    out.push_back(std::move(c));
  }
  return out;
}

TEST(RuleCandidates, HoldEveryChoiceTheRuleMakes) {
  const std::vector<Problem> problems = suite_problems();
  EXPECT_EQ(problems.size(), 36u * 3);  // 24 + 12 shapes in bf16 TN and NN and fp8 TN
  for (const Problem& p : problems) {
    SCOPED_TRACE(describe(p));
    const std::vector<Config> cands = rule_candidates(p);
    EXPECT_LE(cands.size(), is_narrow_shape(p) ? 4u : 20u);  // one rung (narrow) or five, at four splits each
    for (const RuleParams& params : {RuleParams{}, leaning_to_split_k()})
      EXPECT_NE(std::find(cands.begin(), cands.end(), first_rule(p, {}, params)), cands.end());
    for (const Config& c : cands) EXPECT_FALSE(infeasible(c, p, {})) << to_string(c);
  }
}

TEST(RuleFit, FindsConstantsThatPickTheFastestAndKeepsTheDefaultsWhereTheyDo) {
  std::vector<Problem> problems;
  for (const Problem& p : suite_problems())
    if (p.dtype == DType::bf16 && p.layout == Layout::TN) problems.push_back(p);
  // A sweep favouring other constants: the defaults miss somewhere, the fit picks the fastest everywhere.
  const std::vector<SweepCase> other = sweep_favouring(leaning_to_split_k(), problems);
  const Fit now = evaluate(other, RuleParams{}, {});
  EXPECT_GT(now.errors.worst, 0.0);
  const Fit fit = fit_rule(other, {});
  EXPECT_EQ(fit.errors.mean, 0.0);
  for (const FitRow& row : fit.rows) EXPECT_EQ(row.chosen, row.fastest) << row.problem;
  // A sweep the defaults already win: the fit keeps them.
  const Fit same = fit_rule(sweep_favouring(RuleParams{}, problems), {});
  EXPECT_EQ(same.errors.mean, 0.0);
  EXPECT_EQ(same.params, RuleParams{});
}

TEST(RuleFit, TheDefaultsAreTheFitToTheCommittedSweep) {
  // results/sm90-sweep-warm.json timed every rule candidate on llm24 and square in bf16 TN. A change to the rule, its
  // grid or the sweep that moves the fit fails here until the defaults are refitted (`tilewise fit`).
  const receipt::Receipt r = receipt::read_file(std::string(TILEWISE_SOURCE_DIR) + "/results/sm90-sweep-warm.json");
  const std::vector<SweepCase> cases = sweep_cases(r);
  ASSERT_EQ(cases.size(), 36u);
  Limits limits;
  limits.sm_count = r.machine.sm_count;
  const Fit fit = fit_rule(cases, limits);
  EXPECT_EQ(fit.params, RuleParams{});
  // The rule's choice on every measured shape, and how far each lands from the fastest there.
  const Fit now = evaluate(cases, RuleParams{}, limits);
  EXPECT_NEAR(now.errors.mean, 0.019, 0.0005);
  EXPECT_NEAR(now.errors.worst, 0.220, 0.0005);
  for (const FitRow& row : now.rows) {
    SCOPED_TRACE(row.problem);
    const bool far = row.problem.starts_with("sn_64_pf") || row.problem.starts_with("d8k_qkv_pf") ||
                     row.problem.starts_with("d8k_down_pf");
    EXPECT_LT(row.error(), far ? 0.25 : 0.05);
  }
}

TEST(RuleFit, ASweepThatMissesTheRulesChoiceIsAnErrorNamingTheProblem) {
  const Problem p = make_problem("sqL", 2048, 2048, 2048, DType::bf16, Layout::TN);
  std::vector<SweepCase> cases = sweep_favouring(RuleParams{}, {p});
  cases[0].us.erase(to_string(first_rule(p)));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { evaluate(cases, RuleParams{}, {}); }), "sqL"));
  cases[0].us.clear();
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { fit_rule(cases, {}); }), "no timed candidate"));
}

}  // namespace
}  // namespace tilewise::sm90
