// The sm90 family as the tuner's search space: groups in order of impact, only feasible values, and a descent over
// it that never times an infeasible configuration.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "expect_error.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/tuning.hpp"
#include "tune/descent.hpp"
#include "tune/real_space_descent.hpp"
#include "tune/scripted_measure.hpp"
#include "tune/space.hpp"
#include "tune/space_values.hpp"

namespace tilewise::tune {
namespace {

std::vector<Problem> shapes() {
  return {make_problem("sq4096", 4096, 4096, 4096, DType::bf16, Layout::TN),
          make_problem("sq4096nn", 4096, 4096, 4096, DType::fp16, Layout::NN),
          make_problem("d4k_qkv_pf", 4096, 6144, 4096, DType::fp8_e4m3, Layout::TN),
          make_problem("dec16", 16, 16384, 4096, DType::bf16, Layout::TN),
          make_problem("dec1", 1, 12288, 4096, DType::bf16, Layout::TN),
          make_problem("odd", 1000, 3000, 1000, DType::bf16, Layout::TN, 8)};
}

TEST(Sm90Space, GroupsComeInOrderOfImpactOverTheFamilysFields) {
  const Space s = sm90::space(shapes()[0]);
  ASSERT_EQ(s.groups.size(), 5u);
  EXPECT_EQ(s.groups[0].name, "tile");
  EXPECT_EQ(s.groups[0].fields, (std::vector<std::string>{"block_m", "block_n", "consumers", "schedule", "swap"}));
  EXPECT_EQ(s.groups[1].name, "pipeline");
  EXPECT_EQ(s.groups[1].fields, (std::vector<std::string>{"stages", "store"}));
  EXPECT_EQ(s.groups[2].name, "mapping");
  EXPECT_EQ(s.groups[2].fields, (std::vector<std::string>{"raster", "group", "cluster"}));
  EXPECT_EQ(s.groups[3].name, "split");
  EXPECT_EQ(s.groups[3].fields, (std::vector<std::string>{"split"}));
  EXPECT_EQ(s.groups[4].name, "launch");
  EXPECT_EQ(s.groups[4].fields, (std::vector<std::string>{"pdl"}));
}

// The canonical string leaves swap and pdl out when they are 0; the tuner's form always has them, so the tile and
// launch groups can open them.
TEST(Sm90Space, ConfigurationsConvertThroughTheCanonicalString) {
  sm90::Config c{128, 256, 5, 2, sm90::Raster::n, 16, sm90::Store::tma, sm90::Schedule::pingpong, 1, 2};
  EXPECT_EQ(to_string(sm90::tuner_fields(c)), sm90::to_string(c) + ",swap=0,pdl=0");
  EXPECT_EQ(sm90::from_fields(sm90::tuner_fields(c)), c);
  c.swap = true, c.pdl = true;
  EXPECT_EQ(to_string(sm90::tuner_fields(c)), sm90::to_string(c));
  EXPECT_EQ(sm90::from_fields(sm90::tuner_fields(c)), c);
}

// Every alternative appears in some feasible configuration, and every feasible configuration's values appear among
// the alternatives (bar the tile widths a small M cannot use): the groups cover the feasible set exactly.
TEST(Sm90Space, AlternativesAreExactlyTheValuesOfTheFeasibleSet) {
  for (const Problem& p : shapes()) {
    const Space s = sm90::space(p);
    std::vector<Config> feasible;
    for (const sm90::Config& c : sm90::feasible_set(p)) feasible.push_back(sm90::tuner_fields(c));
    for (const Group& g : s.groups) {
      const testkit::GroupValues v = testkit::group_values(g, feasible, describe(p));
      for (const std::string& alt : v.listed) EXPECT_TRUE(v.in_feasible.count(alt)) << describe(p) << " " << alt;
      if (g.name != "tile") EXPECT_EQ(v.listed, v.in_feasible) << describe(p) << " " << g.name;
    }
  }
}

TEST(Sm90Space, TheTileRoundTakesTheUsualWidthsAndThoseThatFitTheKernelsM) {
  // Every multiple of 8 is feasible; the tile round keeps its twelve widths and those covering the kernel's M (the
  // tokens, swapped) in one to eight tiles, so it compiles about as much as before.
  const std::set<int> usual = {8, 16, 32, 48, 64, 80, 96, 128, 160, 192, 224, 256};
  const auto widths = [](const Space& s, const std::string& swap) {
    std::set<int> out;
    for (const Config& alt : s.groups[0].alternatives)
      if (*find(alt, "swap") == swap) out.insert(std::stoi(*find(alt, "block_m")));
    return out;
  };
  const Space square = sm90::space(shapes()[0]);  // 4096: a fitted width is a usual one (256 ... 512 / 8 = 64)
  EXPECT_EQ(widths(square, "0"), usual);
  const Space lin = sm90::space(make_problem("lin142", 20480, 142, 6144, DType::bf16, Layout::TN));
  std::set<int> fitted = usual;
  for (int w : {144, 72, 48, 40, 32, 24, 24, 24}) fitted.insert(w);  // 142 tokens in 1..8 tiles
  const std::set<int> swapped = widths(lin, "1");
  for (int w : swapped) EXPECT_TRUE(fitted.count(w)) << w;
  EXPECT_TRUE(swapped.count(144) && swapped.count(72));
  EXPECT_FALSE(swapped.count(152));
}

TEST(Sm90Space, ASmallMKeepsOnlyTheTilesThatCoverIt) {
  const Space s = sm90::space(shapes()[3]);  // M = 16
  std::set<std::string> widths;
  for (const Config& alt : s.groups[0].alternatives) widths.insert(*find(alt, "block_m"));
  EXPECT_EQ(widths, (std::set<std::string>{"8", "16"}));
}

TEST(Sm90Space, TheFirstRulesTileIsInTheTileRound) {
  // With every multiple of 8 a width, the cover of M = 20 was once 24 while the rule takes 32 (review of a400910).
  for (int64_t M : {1, 16, 20, 40, 56, 100, 142, 1000, 4096})
    for (const Problem& p : {make_problem("m", M, 4096, 4096, DType::bf16, Layout::TN),
                             make_problem("n", 4096, M, 4096, DType::bf16, Layout::TN)}) {
      SCOPED_TRACE(describe(p));
      const Config rule = sm90::tuner_fields(sm90::first_rule(p));
      const Space s = sm90::space(p);
      bool found = false;
      for (const Config& alt : s.groups[0].alternatives) {
        bool same = true;
        for (const char* f : {"block_m", "block_n", "consumers", "schedule", "swap"}) same = same && *find(alt, f) == *find(rule, f);
        found = found || same;
      }
      EXPECT_TRUE(found) << to_string(rule);
    }
}

TEST(Sm90Space, TheWarmStartIsTheFirstRule) {
  for (const Problem& p : shapes()) EXPECT_EQ(sm90::from_fields(sm90::tunable(p).warm_start), sm90::first_rule(p)) << describe(p);
}

// tune --start: a descent from a point one round at a time cannot reach from the rule (sn_64_pf's swapped 64x64 tile
// with the direct store and a split of 2, where the rule takes 128x64 with the TMA store).
TEST(Sm90Space, AGivenStartIsTheWarmStartAndAnInfeasibleOneFailsTheCase) {
  const Problem p = make_problem("sn_64_pf", 4096, 64, 4096, DType::bf16, Layout::TN);
  const sm90::Config start = sm90::parse_config("block_m=64,block_n=64,stages=12,consumers=1,store=direct,split=2,swap=1");
  ASSERT_FALSE(sm90::infeasible(start, p));
  const Tunable t = sm90::tunable(p, {}, start);
  EXPECT_EQ(sm90::from_fields(t.warm_start), start);
  EXPECT_NE(sm90::from_fields(t.warm_start), sm90::first_rule(p));
  EXPECT_EQ(start_case({"sn_64_pf bf16 TN sm90", "sm90", p}, t, "descent").best, to_string(t.warm_start));

  sm90::Config swapped_tma = start;  // swap stores from registers only
  swapped_tma.store = sm90::Store::tma;
  const std::string why = testkit::error_of([&] { start_case({"sn_64_pf bf16 TN sm90", "sm90", p}, sm90::tunable(p, {}, swapped_tma), "descent"); });
  EXPECT_TRUE(testkit::Contains(why, "the warm start " + to_string(sm90::tuner_fields(swapped_tma)) + " is infeasible")) << why;
}

TEST(Sm90Space, AProblemTheFamilyCannotRunIsUnsupported) {
  EXPECT_THROW(sm90::space(make_problem("fp8nn", 4096, 4096, 4096, DType::fp8_e4m3, Layout::NN)), Unsupported);
  Problem odd = make_problem("odd", 4096, 4096, 4095, DType::bf16, Layout::TN);  // lda = 4095: 8190 bytes
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { sm90::tunable(odd); }), "not a multiple of 16"));
}

// Beside the first rule's six-stage ring and TMA store, a 128x256 tile does not fit; the refit gives it a shallower
// ring instead of dropping it from the tile round.
TEST(Sm90Space, LargeTilesReachTheTileRoundByARefit) {
  const Problem p = shapes()[0];
  const Tunable t = sm90::tunable(p);
  const Candidates plain = candidates(t.space.groups[0], t.warm_start, t.space.infeasible);
  const Candidates fitted = candidates(t.space.groups[0], t.warm_start, t.space.infeasible, t.space.fit);
  EXPECT_EQ(plain.enumerated, fitted.enumerated);
  EXPECT_GT(fitted.refitted, 0);
  EXPECT_EQ(fitted.configs.size(), plain.configs.size() + size_t(fitted.refitted));
  EXPECT_EQ(fitted.infeasible, plain.infeasible - fitted.refitted);
  bool wide = false;
  for (const Config& c : fitted.configs) {
    EXPECT_FALSE(sm90::infeasible(sm90::from_fields(c), p)) << to_string(c);
    const sm90::Config s = sm90::from_fields(c);
    EXPECT_EQ(s.raster, sm90::Raster::m);  // the mapping is left as the incumbent has it
    wide |= s.block_m == 128 && s.block_n == 256 && s.consumers == 2;
  }
  EXPECT_TRUE(wide);
}

TEST(Sm90Space, ADescentTimesOnlyFeasibleConfigurations) {
  for (const Problem& p : shapes())
    testkit::expect_descent_times_only_feasible(p, "sm90", sm90::tunable(p), 17, 50, [&](const Config& c) {
      return !sm90::infeasible(sm90::from_fields(c), p);
    });
}

}  // namespace
}  // namespace tilewise::tune
