// The one-shot grid: the product of every group at once, capped, without the incumbent's floor.
#include <gtest/gtest.h>

#include <set>

#include "expect_error.hpp"
#include "synthetic_space.hpp"
#include "tune/descent.hpp"
#include "tune/grid.hpp"

namespace tilewise::tune {
namespace {

const Case kCase{"case", "synthetic", make_problem("p", 256, 256, 256, DType::bf16, Layout::TN)};

TEST(Grid, PointsAreTheMixedRadixProductOverTheWarmStart) {
  const Tunable t = testkit::synthetic_tunable();
  EXPECT_EQ(to_string(grid_point(t.space, t.warm_start, 0)), "tile=0,split=1,red=a,map=0,vw=0,x=7");
  EXPECT_EQ(to_string(grid_point(t.space, t.warm_start, 1)), "tile=0,split=1,red=a,map=0,vw=1,x=7");
  EXPECT_EQ(to_string(grid_point(t.space, t.warm_start, 3)), "tile=0,split=1,red=a,map=1,vw=0,x=7");
  EXPECT_EQ(to_string(grid_point(t.space, t.warm_start, product_size(t.space) - 1)),
            "tile=5,split=4,red=b,map=4,vw=2,x=7");
}

TEST(Grid, UncappedItWalksEveryPointOnceAndCountsTheInfeasible) {
  const Tunable t = testkit::synthetic_tunable();
  testkit::ScriptedMeasure m;
  m.truth = testkit::synthetic_truth(5);
  CaseResult r = start_case(kCase, t, "grid");
  grid(r, t, m, {.cap = 1 << 20, .seed = 9});
  ASSERT_EQ(m.asked.size(), 1u);
  const std::set<std::string> distinct = [&] {
    std::set<std::string> s;
    for (const Config& c : m.asked[0]) s.insert(to_string(c));
    return s;
  }();
  const int infeasible = 1 * 2 * 5 * 3;  // tile=5 with split=4 (two reductions), any map and widths
  EXPECT_EQ(distinct.size(), product_size(t.space) - infeasible);
  const Round& round = r.rounds.at(0);
  EXPECT_EQ(round.group, "grid");
  EXPECT_EQ(round.enumerated, int(product_size(t.space)));
  EXPECT_EQ(round.infeasible, infeasible);
  EXPECT_EQ(round.legal, int(distinct.size()));
  EXPECT_EQ(round.timed, round.legal);
  EXPECT_EQ(r.status, Status::finished);
}

TEST(Grid, RespectsItsCapAndSpreadsTheSampleBySeed) {
  const Tunable t = testkit::synthetic_tunable();
  std::set<std::string> firsts;
  for (int cap : {1, 7, 40, 400}) {
    for (uint64_t seed : {1, 2, 3}) {
      testkit::ScriptedMeasure m;
      m.truth = testkit::synthetic_truth(5);
      CaseResult r = start_case(kCase, t, "grid");
      grid(r, t, m, {.cap = cap, .seed = seed});
      ASSERT_EQ(m.asked.size(), 1u);
      EXPECT_EQ(int(m.asked[0].size()), cap + 1);  // the warm start first, as the reference
      EXPECT_EQ(m.asked[0][0], t.warm_start);
      EXPECT_EQ(r.rounds[0].legal, cap);
      EXPECT_EQ(r.rounds[0].enumerated, cap + r.rounds[0].infeasible);
      if (cap == 7) firsts.insert(to_string(m.asked[0][1]));
    }
  }
  EXPECT_GT(firsts.size(), 1u);  // the walk depends on the seed
}

// What the comparison is for: under the same truth and noise, a capped grid often ends slower than the warm start it
// never saw, the descent never does.
TEST(Grid, CanEndSlowerThanTheWarmStartWhereTheDescentCannot) {
  const Tunable t = testkit::synthetic_tunable();
  int grid_worse = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    testkit::ScriptedMeasure m;
    m.truth = testkit::synthetic_truth(seed);
    m.seed = seed;
    CaseResult g = start_case(kCase, t, "grid");
    grid(g, t, m, {.cap = 8, .seed = seed});
    CaseResult d = start_case(kCase, t, "descent");
    descend(d, t, m);
    grid_worse += m.truth(parse(g.best)) > m.truth(t.warm_start);
    EXPECT_LE(m.truth(parse(d.best)), m.truth(t.warm_start));
  }
  EXPECT_GT(grid_worse, 0);
}

TEST(Grid, ADroppedCandidateIsCountedAndChosenOnlyWhenEveryPointWas) {
  const Tunable t = testkit::synthetic_tunable();
  // The grid's first candidate is the one the others were screened against; the fastest truth there is dropped.
  struct Screened : Measure {
    std::vector<Timing> measure(const Case&, const std::vector<Config>& cands) override {
      std::vector<Timing> out(cands.size(), Timing{true, "", {10, 10, 10}});
      out[1] = Timing{true, "", {1}, true};
      out[2].us = {9, 9, 9};
      return out;
    }
  } m;
  CaseResult r = start_case(kCase, t, "grid");
  grid(r, t, m, {.cap = 5});
  EXPECT_EQ(r.rounds[0].timed, 5);
  EXPECT_EQ(r.rounds[0].dropped, 1);
  EXPECT_EQ(r.best_us, 9);
  // Every point ruled out against the warm start (10 us): the grid still answers, with its best point, slower.
  struct AllScreened : Measure {
    std::vector<Timing> measure(const Case&, const std::vector<Config>& cands) override {
      std::vector<Timing> out(cands.size(), Timing{true, "", {13}, true});
      out[0] = Timing{true, "", {10, 10, 10}};
      out[3].us = {12};
      return out;
    }
  } all;
  CaseResult s = start_case(kCase, t, "grid");
  grid(s, t, all, {.cap = 5});
  EXPECT_EQ(s.status, Status::finished);
  EXPECT_EQ(s.rounds[0].dropped, 5);
  EXPECT_EQ(s.best_us, 12);
}

TEST(Grid, NothingTimedIsAnError) {
  const Tunable t = testkit::synthetic_tunable();
  testkit::ScriptedMeasure m;
  m.truth = testkit::synthetic_truth(5);
  m.fails_check = [&](const Config& c) { return c == t.warm_start ? "" : "wrong"; };
  CaseResult r = start_case(kCase, t, "grid");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { grid(r, t, m, {.cap = 5}); }), "timed none of its 5"));
  m.fails_check = [](const Config&) { return "wrong"; };
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { grid(r, t, m, {.cap = 5}); }),
                                "the warm start, the grid's reference, could not be timed: wrong"));
}

// Points timed in a later chunk, under other clocks, are compared through the reference timed beside them.
TEST(Grid, PointsFromDifferentChunksCompareThroughTheReferenceBesideThem) {
  const Tunable t = testkit::synthetic_tunable();
  struct Chunked : Measure {
    std::vector<Timing> measure(const Case&, const std::vector<Config>& cands) override {
      std::vector<Timing> out(cands.size(), Timing{true, "", {10, 10, 10}});
      out[1].us = {9, 9, 9};                                // 0.9 of the reference beside it
      out[2] = Timing{true, "", {6, 6, 6}, false, {5, 5, 5}};  // fastest raw, but 1.2 of its chunk's reference
      out[3] = Timing{true, "", {4, 4, 4}, false, {5, 5, 5}};  // 0.8 of its chunk's reference: the winner
      return out;
    }
  } m;
  CaseResult r = start_case(kCase, t, "grid");
  grid(r, t, m, {.cap = 4});
  EXPECT_EQ(r.rounds[0].winner_us, (std::vector<double>{4, 4, 4}));
  EXPECT_EQ(r.rounds[0].winner_reference_us, (std::vector<double>{5, 5, 5}));
  EXPECT_DOUBLE_EQ(r.best_us, 8);  // 0.8 of the reference at the first chunk's clocks
}

}  // namespace
}  // namespace tilewise::tune
