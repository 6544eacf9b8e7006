// The grid against the descent (src/tune/mode_compare.hpp): cases matched by id, final latencies, candidates timed and
// wall time from each campaign's rounds; a campaign of the wrong mode is refused by name.
#include <gtest/gtest.h>

#include <cmath>

#include "expect_error.hpp"
#include "tune/mode_compare.hpp"

namespace tilewise::tune {
namespace {

// A finished case whose run timed the warm start at `start_us` first and whose trajectory ends at `final_us`; the
// last measurement of its held configuration (best_us) is deliberately another figure, drifted.
CaseResult finished(std::string id, std::string mode, double start_us, double final_us,
                    std::vector<std::pair<int, double>> rounds) {
  CaseResult r;
  r.c.id = std::move(id);
  r.mode = std::move(mode);
  r.status = Status::finished;
  r.best_us = final_us * 1.2;
  if (r.mode == "descent") r.start_us = start_us;
  for (const auto& [timed, wall] : rounds) {
    Round round;
    round.timed = timed;
    round.wall_s = wall;
    round.incumbent_us = {start_us * 1.01, start_us};  // later rounds' incumbents drift; only the first is read
    round.latency_us = final_us;
    r.rounds.push_back(round);
  }
  if (r.mode == "grid") r.rounds[0].incumbent_us = {start_us, start_us, start_us};
  return r;
}

TEST(ModeCompare, MatchesCasesByIdWithLatencyCandidatesAndWallTime) {
  CaseResult running = finished("c", "descent", 5, 5, {{1, 1.0}});
  running.status = Status::running;
  // a: descent 12 -> 10, grid 10 -> 7.5 (its run's clocks 1/6 faster): 0.75 / (10 / 12) = 0.9 of the descent.
  // b: descent 40 -> 40, grid 40 -> 44.
  const std::vector<CaseResult> descent = {finished("a", "descent", 12, 10, {{20, 2.0}, {5, 1.0}}),
                                           finished("b", "descent", 40, 40, {{10, 3.0}}), running};
  const std::vector<CaseResult> grid = {finished("b", "grid", 40, 44, {{400, 30.0}}),
                                        finished("a", "grid", 10, 7.5, {{400, 20.0}}),
                                        finished("c", "grid", 5, 5, {{400, 10.0}})};
  const ModeComparison c = compare_modes(descent, grid);
  ASSERT_EQ(c.rows.size(), 2u);  // c never finished its descent
  EXPECT_EQ(c.rows[0].id, "a");
  EXPECT_EQ(c.rows[0].descent_timed, 25);
  EXPECT_DOUBLE_EQ(c.rows[0].descent_wall_s, 3.0);
  EXPECT_EQ(c.rows[0].grid_timed, 400);
  EXPECT_DOUBLE_EQ(c.rows[0].descent_start_us, 12);
  EXPECT_DOUBLE_EQ(c.rows[0].descent_us, 10);  // the trajectory's end, not the drifted last measurement
  EXPECT_DOUBLE_EQ(c.rows[0].grid_start_us, 10);
  EXPECT_DOUBLE_EQ(c.rows[0].ratio(), 0.9);
  EXPECT_DOUBLE_EQ(c.rows[1].ratio(), 1.1);
  EXPECT_DOUBLE_EQ(c.geomean_ratio, std::sqrt(0.9 * 1.1));
  EXPECT_DOUBLE_EQ(c.descent_wall_s, 6.0);
  EXPECT_DOUBLE_EQ(c.grid_wall_s, 50.0);
  const std::string table = format_mode_comparison(c);
  EXPECT_NE(table.find("0.900x"), std::string::npos);
  EXPECT_NE(table.find("2 cases in both"), std::string::npos);
}

TEST(ModeCompare, CampaignsGivenTheWrongWayRoundAreRefused) {
  const std::vector<CaseResult> descent = {finished("a", "descent", 10, 10, {{20, 2.0}})};
  const std::vector<CaseResult> grid = {finished("a", "grid", 9, 9, {{400, 20.0}})};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { compare_modes(grid, descent); }),
                                "case 'a' was tuned in grid mode where a descent campaign was expected"));
  std::vector<CaseResult> no_rounds = {finished("a", "grid", 9, 9, {{400, 20.0}})};
  no_rounds[0].rounds.clear();
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { compare_modes(descent, no_rounds); }),
                                "case 'a' has no warm start or final latency"));
}

TEST(ModeCompare, CampaignsWithNoCaseInCommonAreRefused) {
  const std::vector<CaseResult> descent = {finished("a", "descent", 10, 10, {{20, 2.0}})};
  const std::vector<CaseResult> grid = {finished("b", "grid", 9, 9, {{400, 20.0}})};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { compare_modes(descent, grid); }),
                                "no finished case in common: nothing to set side by side"));
}

}  // namespace
}  // namespace tilewise::tune
