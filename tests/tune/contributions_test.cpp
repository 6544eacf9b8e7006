// The per-round contribution table (seed 003's Table 3): speedups chained from each case's trajectory.
#include <gtest/gtest.h>

#include <cmath>

#include "tune/contributions.hpp"

namespace tilewise::tune {
namespace {

// A finished descent case whose latency goes start -> each of `after` in rounds tile, split, mapping.
CaseResult descent_case(std::string id, double start, std::vector<double> after) {
  CaseResult r;
  r.c.id = std::move(id);
  r.mode = "descent";
  r.status = Status::finished;
  r.start_us = start;
  const char* groups[] = {"tile", "split", "mapping"};
  for (size_t i = 0; i < after.size(); ++i) {
    Round round;
    round.group = groups[i];
    round.latency_us = after[i];
    round.adopted = i == 0 ? after[i] < start : after[i] < after[i - 1];
    r.rounds.push_back(round);
  }
  return r;
}

TEST(Contributions, PerRoundSpeedupsOverTheKernelEnteringTheRound) {
  const std::vector<CaseResult> cases = {descent_case("a", 100, {50, 50, 40}),   // 2.0, 1.0, 1.25
                                         descent_case("b", 100, {100, 80, 80}),  // 1.0, 1.25, 1.0
                                         descent_case("c", 100, {100, 100, 100})};
  const std::vector<Contribution> rows = contributions(cases);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].round, "tile");
  EXPECT_EQ(rows[0].cases, 3);
  EXPECT_EQ(rows[0].improved, 1);
  EXPECT_DOUBLE_EQ(rows[0].mean, 4.0 / 3);
  EXPECT_DOUBLE_EQ(rows[0].median, 1.0);
  EXPECT_DOUBLE_EQ(rows[0].best, 2.0);
  EXPECT_EQ(rows[0].best_case, "a");
  EXPECT_EQ(rows[1].round, "split");
  EXPECT_EQ(rows[1].improved, 1);
  EXPECT_EQ(rows[1].best_case, "b");
  EXPECT_EQ(rows[2].round, "mapping");
  EXPECT_DOUBLE_EQ(rows[2].best, 1.25);
  EXPECT_EQ(rows[3].round, "all rounds");
  EXPECT_EQ(rows[3].improved, 2);
  EXPECT_DOUBLE_EQ(rows[3].best, 2.5);
  EXPECT_DOUBLE_EQ(rows[3].median, 1.25);
  EXPECT_DOUBLE_EQ(rows[3].geomean, std::cbrt(2.5 * 1.25 * 1.0));
}

TEST(Contributions, RisesNameTheCaseAndRoundWhereLatencyWentUp) {
  EXPECT_TRUE(rises({descent_case("a", 100, {50, 50, 40})}).empty());
  const std::vector<std::string> up = rises({descent_case("a", 100, {50, 60, 40}), descent_case("b", 90, {95})});
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[0], "a: round split 60.00 us after 50.00 us");
  EXPECT_EQ(up[1], "b: round tile 95.00 us after 90.00 us");
}

TEST(Contributions, LeavesOutGridRunningAndFailedCases) {
  CaseResult grid = descent_case("g", 100, {10});
  grid.mode = "grid";
  CaseResult running = descent_case("r", 100, {10});
  running.status = Status::running;
  CaseResult failed = descent_case("f", 100, {});
  failed.status = Status::failed;
  EXPECT_TRUE(contributions({grid, running, failed}).empty());
  const auto rows = contributions({grid, descent_case("ok", 100, {80})});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].cases, 1);
  EXPECT_DOUBLE_EQ(rows[0].mean, 1.25);
}

TEST(Contributions, TableHasARowPerRoundWithCasesImproved) {
  const std::string table = format_contributions(contributions({descent_case("a", 100, {50, 50, 40})}));
  EXPECT_NE(table.find("round"), std::string::npos);
  EXPECT_NE(table.find("tile"), std::string::npos);
  EXPECT_NE(table.find("2.000x"), std::string::npos);
  EXPECT_NE(table.find("1 / 1"), std::string::npos);
  EXPECT_NE(table.find("all rounds"), std::string::npos);
  EXPECT_NE(table.find("2.50x  a"), std::string::npos);
}

// Adoptions whose winner the next round timed again as its incumbent; a hold or a last round adds nothing.
TEST(Contributions, RetimedComparesEachWinnerWithItsNextMeasurement) {
  CaseResult r = descent_case("a", 100, {50, 50, 40});
  r.rounds[0].winner = "tile=1";
  r.rounds[0].winner_us = {50, 50, 50};
  r.rounds[1].incumbent = "tile=1";
  r.rounds[1].incumbent_us = {60, 60, 60};  // 1.2x slower the second time
  r.rounds[2].winner = "split=2";          // adopted, but no round after it to time it again
  r.rounds[2].winner_us = {40, 40, 40};
  CaseResult b = descent_case("b", 100, {90, 90});
  b.rounds[0].winner = "tile=2";
  b.rounds[0].winner_us = {90, 90, 90};
  b.rounds[1].incumbent = "tile=2";
  b.rounds[1].incumbent_us = {89, 90, 91};  // held up
  const Retimed again = retimed({r, b});
  EXPECT_EQ(again.adoptions, 2);
  EXPECT_EQ(again.slower_5pct, 1);
  EXPECT_DOUBLE_EQ(again.median, (1.2 + 1.0) / 2);
  EXPECT_EQ(retimed({descent_case("c", 100, {100, 100})}).adoptions, 0);
}

}  // namespace
}  // namespace tilewise::tune
