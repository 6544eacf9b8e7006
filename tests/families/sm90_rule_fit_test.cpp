// The first rule's constants and their fit to a sweep (src/families/sm90/heuristic.hpp, rule_fit.hpp), without a
// GPU: the rule only ever picks among rule_candidates, so a sweep of those judges any set of constants; a fit finds
// the constants a sweep favours and keeps the defaults where they already pick the fastest.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "core/sweep.hpp"
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
    for (const Config& cand : sweep_candidates(p)) c.us[to_string(cand)] = to_string(cand) == chosen ? 1.0 : 1.2;
    out.push_back(std::move(c));
  }
  return out;
}

RuleParams swapping() {
  RuleParams p;
  p.swapped_rate = 1.1;
  return p;
}

RuleParams fitting() {
  RuleParams p;
  p.fitted_rate = 0.88;
  return p;
}

RuleParams fitting_one_consumer() {
  RuleParams p;
  p.fitted_one_consumer_rate = 0.8;
  return p;
}

// nn.Linear's orientation at few tokens (N), as the sweep's gap cases (suites/sm90-gaps.txt) have them.
std::vector<Problem> few_token_problems() {
  std::vector<Problem> out;
  for (auto [M, N, K] : {std::array<int64_t, 3>{20480, 142, 6144}, {2944, 528, 7680}, {12672, 257, 13568},
                         {640, 461, 14208}, {14208, 133, 2816}, {4096, 17, 4096}, {4096, 1024, 4096}})
    out.push_back(make_problem(fmt::format("lin{}", N), M, N, K, DType::bf16, Layout::TN));
  return out;
}

TEST(RuleCandidates, HoldEveryChoiceTheRuleMakes) {
  std::vector<Problem> problems = suite_problems();
  EXPECT_EQ(problems.size(), 36u * 3);  // 24 + 12 shapes in bf16 TN and NN and fp8 TN
  for (const Problem& p : few_token_problems()) problems.push_back(p);
  for (const Problem& p : problems) {
    SCOPED_TRACE(describe(p));
    const std::vector<Config> in_use = rule_candidates(p), swept = sweep_candidates(p);
    // One rung (narrow) or five, and up to four swapped ones, at four splits each; up to four fitted widths unsplit.
    EXPECT_LE(swept.size(), is_narrow_shape(p) ? 4u : 40u);
    for (const RuleParams& params :
         {RuleParams{}, leaning_to_split_k(), swapping(), fitting(), fitting_one_consumer()}) {
      const Config chosen = first_rule(p, {}, params);
      const std::vector<Config> cands = rule_candidates(p, {}, params);
      EXPECT_NE(std::find(cands.begin(), cands.end(), chosen), cands.end());
      EXPECT_NE(std::find(swept.begin(), swept.end(), chosen), swept.end());
    }
    for (const Config& c : in_use) {  // the shipped constants' candidates never swap: their rate is 0
      EXPECT_FALSE(c.swap) << to_string(c);
      EXPECT_NE(std::find(swept.begin(), swept.end(), c), swept.end()) << to_string(c);
    }
    for (const Config& c : swept) EXPECT_FALSE(infeasible(c, p, {})) << to_string(c);
  }
}

TEST(RuleCandidates, SwappedTilesFitTheirWidthToTheTokensAndWaitForARate) {
  const Problem p = make_problem("lin142", 20480, 142, 6144, DType::bf16, Layout::TN);
  EXPECT_FALSE(first_rule(p).swap);  // the shipped constants rate swapped tiles 0
  const Config c = first_rule(p, {}, swapping());
  EXPECT_TRUE(c.swap);
  EXPECT_EQ(c.block_m, 144);  // 142 tokens in one tile of the width, not three tiles of 64 rows
  EXPECT_EQ(c.store, Store::direct);
  std::set<int> widths;
  for (const Config& s : sweep_candidates(p))
    if (s.swap) widths.insert(s.block_m);
  EXPECT_EQ(widths, (std::set<int>{72, 144}));  // the fewest tiles and one more
  const Problem wide = make_problem("lin461", 640, 461, 14208, DType::bf16, Layout::TN);
  widths.clear();
  for (const Config& s : sweep_candidates(wide))
    if (s.swap) widths.insert(s.block_m);
  // Two tiles of 231 tokens or three of 154 on 128 rows; three or four (of 116) on 64 rows, 224 wide at most there.
  EXPECT_EQ(widths, (std::set<int>{120, 160, 232}));
  // No swapped rung where the operands cannot swap (an M-major A), past 1024 tokens, or for decode's narrow M.
  for (const Problem& q : {make_problem("nn", 20480, 142, 6144, DType::bf16, Layout::NN),
                           make_problem("many", 4096, 1025, 4096, DType::bf16, Layout::TN),
                           make_problem("dec", 16, 142, 4096, DType::bf16, Layout::TN)})
    for (const Config& s : sweep_candidates(q)) EXPECT_FALSE(s.swap) << describe(q) << " " << to_string(s);
}

// The widths fitted to whole waves among `p`'s sweep candidates for `consumers` (not whole 64-column atoms, not
// swapped), each of which must run unsplit.
std::set<int> fitted_widths(const Problem& p, int consumers) {
  std::set<int> widths;
  for (const Config& s : sweep_candidates(p))
    if (is_fitted_width(s.block_m, s.swap) && s.consumers == consumers) {
      widths.insert(s.block_m);
      EXPECT_EQ(s.split, 1) << to_string(s);
    }
  return widths;
}

// `p` and `wide` (16-bit TN; `wide` with N in two column tiles of consumers x 64 rows) take widths fitted for
// `consumers`. The same shapes take none with an M-major A (it loads whole 64-column atoms), in fp8 (not measured
// with them), with an ldc the TMA store could not write (M two less), or, `wide`, with N in one column tile.
void expect_fitted_only_where_measured(const Problem& p, const Problem& wide, int consumers) {
  ASSERT_FALSE(fitted_widths(p, consumers).empty()) << describe(p);
  ASSERT_FALSE(fitted_widths(wide, consumers).empty()) << describe(wide);
  for (const Problem& q : {make_problem("nn", p.M, p.N, p.K, DType::bf16, Layout::NN),
                           make_problem("fp8", p.M, p.N, p.K, DType::fp8_e4m3, Layout::TN),
                           make_problem("odd_ldc", p.M - 2, p.N, p.K, DType::bf16, Layout::TN),
                           make_problem("one_column_tile", wide.M, 64 * consumers - 4, wide.K, DType::bf16,
                                        Layout::TN)})
    EXPECT_EQ(fitted_widths(q, consumers), std::set<int>{}) << describe(q);
}

TEST(RuleCandidates, FittedWidthsFillWholeWavesUnsplitWithTheStagedStoreAndWaitForARate) {
  // 1536^3: the ladder's best is 96 tiles of 192 x 128 on 132 SMs; 144 x 128 makes 11 x 12 = 132.
  const Problem sq1536 = make_problem("sq1536", 1536, 1536, 1536, DType::bf16, Layout::TN);
  RuleParams ladder_only;
  ladder_only.fitted_rate = 0;
  EXPECT_EQ(first_rule(sq1536, {}, ladder_only).block_m, 192);  // rate 0: not taken
  const Config c = first_rule(sq1536, {}, fitting());
  EXPECT_EQ(c.block_m, 144);
  EXPECT_EQ(c.block_n, 128);
  EXPECT_EQ(c.split, 1);
  EXPECT_EQ(c.store, Store::staged);
  EXPECT_GE(c.stages, 4);
  // 2560^3 (20 column tiles): 200 wide makes two whole waves (13 x 20 = 260); three waves (136 wide) are not taken.
  EXPECT_EQ(fitted_widths(make_problem("sq2560", 2560, 2560, 2560, DType::bf16, Layout::TN), 2), (std::set<int>{200}));
  // 11616 x 200: 66 tiles of 176 beside N's two column tiles fill a wave.
  expect_fitted_only_where_measured(sq1536, make_problem("wide", 11616, 200, 1024, DType::bf16, Layout::TN), 2);
}

TEST(RuleCandidates, OneConsumerFittedWidthsFillWholeWavesUnsplitAndWaitForARate) {
  // 768^3: the ladder's 128 x 64 makes 72 tiles on 132 SMs; 72 x 64 makes 11 x 12 = 132.
  const Problem sq768 = make_problem("sq768", 768, 768, 768, DType::bf16, Layout::TN);
  EXPECT_EQ(first_rule(sq768).block_m, 128);  // the shipped constants leave them unrated: not taken
  const Config c = first_rule(sq768, {}, fitting_one_consumer());
  EXPECT_EQ(c.block_m, 72);
  EXPECT_EQ(c.block_n, 64);
  EXPECT_EQ(c.consumers, 1);
  EXPECT_EQ(c.split, 1);
  EXPECT_EQ(c.store, Store::staged);
  const std::vector<Config> in_use = rule_candidates(sq768), swept = sweep_candidates(sq768);
  EXPECT_EQ(std::find(in_use.begin(), in_use.end(), c), in_use.end());
  EXPECT_NE(std::find(swept.begin(), swept.end(), c), swept.end());
  // 1536 x 1024 (16 column tiles of 64): one wave would be 8 tiles of 192 (past 120), two are 16 of 96.
  EXPECT_EQ(fitted_widths(make_problem("w", 1536, 1024, 512, DType::bf16, Layout::TN), 1), (std::set<int>{96}));
  // The same limits as two consumers' widths (6336 x 120: 66 tiles of 96 beside N's two column tiles of 64).
  expect_fitted_only_where_measured(sq768, make_problem("wide", 6336, 120, 1024, DType::bf16, Layout::TN), 1);
}

TEST(RuleCandidates, OneConsumerFittedWidthsWaitForTheirFewestKTiles) {
  RuleParams from_12 = fitting_one_consumer();
  from_12.fitted_one_consumer_min_k_tiles = 12;
  // 768^3 has 12 k-tiles of 64: taken. With K = 704 (11) the rule keeps the ladder's tile, and no candidate in use
  // is a one-consumer fitted width; the sweep still times them.
  const Problem long_k = make_problem("sq768", 768, 768, 768, DType::bf16, Layout::TN);
  const Problem short_k = make_problem("k704", 768, 768, 704, DType::bf16, Layout::TN);
  EXPECT_EQ(first_rule(long_k, {}, from_12).block_m, 72);
  EXPECT_EQ(first_rule(short_k, {}, fitting_one_consumer()).block_m, 72);
  EXPECT_EQ(first_rule(short_k, {}, from_12).block_m, 128);
  auto one_consumer_width = [](const Config& c) { return c.consumers == 1 && is_fitted_width(c.block_m, c.swap); };
  const std::vector<Config> in_use = rule_candidates(short_k, {}, from_12), swept = sweep_candidates(short_k);
  EXPECT_TRUE(std::none_of(in_use.begin(), in_use.end(), one_consumer_width));
  EXPECT_TRUE(std::any_of(swept.begin(), swept.end(), one_consumer_width));
}

TEST(RuleCandidates, EveryChoiceCompletesOnTheBroadSweepWhateverTheRates) {
  // choose_tile weighs rungs and splits without asking feasibility, so each must complete: on the 600 problems of
  // the sweep the floor was fitted to, every constant set's choice is a feasible configuration.
  int swapped = 0;
  for (const SweepProblem& s : sweep(20261202, 600)) {
    const Problem p = make_problem(s.name, s.M, s.N, s.K, s.dtype, s.layout, s.pad);
    for (const RuleParams& params :
         {RuleParams{}, leaning_to_split_k(), swapping(), fitting(), fitting_one_consumer()}) try {
        const Config c = first_rule(p, {}, params);
        EXPECT_FALSE(infeasible(c, p, {})) << describe(p) << " " << to_string(c);
        swapped += c.swap;
      } catch (const Unsupported& e) {  // only a stride TMA cannot load
        EXPECT_TRUE(testkit::Contains(e.what(), "TMA cannot load")) << e.what();
      }
  }
  EXPECT_GT(swapped, 0);
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
  // A sweep favouring swapped tiles at few tokens: the fit finds their rate.
  const Fit swapped = fit_rule(sweep_favouring(swapping(), few_token_problems()), {});
  EXPECT_GT(swapped.params.swapped_rate, 0.0);
  EXPECT_EQ(swapped.errors.mean, 0.0);
  // A sweep favouring one consumer's widths only from 12 k-tiles: the fit finds a bound between the short problems'
  // 6 and the long ones' 12 (the smallest on its grid that separates them) and the rate.
  RuleParams from_12 = fitting_one_consumer();
  from_12.fitted_one_consumer_min_k_tiles = 12;
  std::vector<Problem> k_problems;
  for (int64_t K : {384, 768, 1536})
    for (auto [M, N] : {std::array<int64_t, 2>{768, 768}, {6144, 96}, {384, 2044}})
      k_problems.push_back(make_problem(fmt::format("k{}_{}x{}", K, M, N), M, N, K, DType::bf16, Layout::TN));
  const Fit by_k = fit_rule(sweep_favouring(from_12, k_problems), {});
  EXPECT_EQ(by_k.errors.mean, 0.0);
  EXPECT_GT(by_k.params.fitted_one_consumer_rate, 0.0);
  EXPECT_EQ(by_k.params.fitted_one_consumer_min_k_tiles, 8);
  // A sweep the defaults already win: the fit keeps them.
  const Fit same = fit_rule(sweep_favouring(RuleParams{}, problems), {});
  EXPECT_EQ(same.errors.mean, 0.0);
  EXPECT_EQ(same.params, RuleParams{});
}

TEST(RuleFit, TheDefaultsAreTheFitToTheCommittedSweep) {
  // results/sm90-sweep-fitted-warm.json timed every rule candidate, the swapped tiles and the widths fitted to whole
  // waves among them, on llm24 and square in bf16 TN. A change to the rule, its grid or the sweep that moves the fit
  // fails here until the defaults are refitted (`tilewise fit --hold-swapped`: heuristic.hpp says why).
  const receipt::Receipt r =
      receipt::read_file(std::string(TILEWISE_SOURCE_DIR) + "/results/sm90-sweep-fitted-warm.json");
  const std::vector<SweepCase> cases = sweep_cases(r);
  ASSERT_EQ(cases.size(), 36u);
  Limits limits;
  limits.sm_count = r.machine.sm_count;
  const Fit fit = fit_rule(cases, limits, /*hold_swapped=*/true);
  EXPECT_EQ(fit.params, RuleParams{});
  EXPECT_EQ(fit_rule(cases, limits).params.swapped_rate, 0.70);  // what the swapped tiles' own fit would take
  // The rule's choice on every measured shape, and how far each lands from the fastest there.
  const Fit now = evaluate(cases, RuleParams{}, limits);
  EXPECT_NEAR(now.errors.mean, 0.034, 0.0005);
  EXPECT_NEAR(now.errors.worst, 0.731, 0.0005);
  for (const FitRow& row : now.rows) {  // the far ones: where a swapped tile is fastest, and wideN's 128 x 128
    SCOPED_TRACE(row.problem);
    const bool far = row.problem.starts_with("sn_16_pf") || row.problem.starts_with("sn_64_pf") ||
                     row.problem.starts_with("wideN");
    EXPECT_LT(row.error(), far ? 0.74 : 0.05);
  }
}

// Receipts before the launch rule timed every candidate plain; the fit reads the rule's choice from them as it was
// timed, and from a newer receipt as the rule launches it.
TEST(RuleFit, AChoiceTimedBeforeTheLaunchRuleIsReadAsItWasTimed) {
  const Problem p = make_problem("sq256", 256, 256, 256, DType::bf16, Layout::TN);
  Config launched_choice = first_rule(p), plain = launched_choice;
  ASSERT_TRUE(launched_choice.pdl);
  plain.pdl = false;
  SweepCase old{p, {{to_string(plain), 2.0}}};
  const Fit from_old = evaluate({old}, RuleParams{}, {});
  ASSERT_EQ(from_old.rows.size(), 1u);
  EXPECT_EQ(from_old.rows[0].chosen, to_string(plain));
  EXPECT_EQ(from_old.rows[0].chosen_us, 2.0);
  SweepCase both = old;
  both.us[to_string(launched_choice)] = 1.5;
  const Fit from_both = evaluate({both}, RuleParams{}, {});
  EXPECT_EQ(from_both.rows[0].chosen, to_string(launched_choice));
  EXPECT_EQ(from_both.rows[0].chosen_us, 1.5);
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
