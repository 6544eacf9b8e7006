// One round's candidate list: the incumbent always in it, first; duplicates and infeasible candidates out, counted.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "synthetic_space.hpp"

namespace tilewise::tune {
namespace {

using testkit::cfg;

TEST(Candidates, HoldTheIncumbentFirstAndCountWhatWasAskedFor) {
  const Group g = testkit::group("tile", {"tile"}, {"tile=0", "tile=1", "tile=0"});
  const Candidates c = candidates(g, cfg("tile=7,x=1"), {});
  // The incumbent's own value (7) is not among the alternatives: it is added, and counted as asked for.
  ASSERT_EQ(c.configs.size(), 3u);
  EXPECT_EQ(c.configs[0], cfg("tile=7,x=1"));
  EXPECT_EQ(c.configs[1], cfg("tile=0,x=1"));
  EXPECT_EQ(c.configs[2], cfg("tile=1,x=1"));
  EXPECT_EQ(c.enumerated, 3);
  EXPECT_EQ(c.infeasible, 0);
}

TEST(Candidates, TheIncumbentsOwnValueIsNotListedTwice) {
  const Group g = testkit::group("tile", {"tile"}, {"tile=0", "tile=1"});
  const Candidates c = candidates(g, cfg("tile=1,x=1"), {});
  ASSERT_EQ(c.configs.size(), 2u);
  EXPECT_EQ(c.configs[0], cfg("tile=1,x=1"));
  EXPECT_EQ(c.enumerated, 2);
}

TEST(Candidates, InfeasibleOnesAreDroppedAndCountedButNeverTheIncumbent) {
  const Group g = testkit::group("tile", {"tile"}, {"tile=0", "tile=1", "tile=2"});
  const Feasibility all_but_two = [](const Config& c) -> std::optional<std::string> {
    if (*find(c, "tile") != "2") return "no";
    return std::nullopt;
  };
  const Candidates c = candidates(g, cfg("tile=0"), all_but_two);
  ASSERT_EQ(c.configs.size(), 2u);  // the incumbent tile=0 stays though the rule refuses it
  EXPECT_EQ(c.configs[0], cfg("tile=0"));
  EXPECT_EQ(c.configs[1], cfg("tile=2"));
  EXPECT_EQ(c.infeasible, 1);
  EXPECT_EQ(c.enumerated, 3);
}

TEST(Candidates, AFitKeepsAnInfeasibleCandidateOnlyInAFeasibleFormWithTheGroupsValues) {
  const Group g = testkit::group("tile", {"tile"}, {"tile=0", "tile=1", "tile=2", "tile=3"});
  // A tile above 0 fits only with depth 1; tile=3 fits nowhere.
  const Feasibility infeasible = [](const Config& c) -> std::optional<std::string> {
    if (*find(c, "tile") == "3") return "never";
    if (*find(c, "tile") != "0" && *find(c, "depth") != "1") return "too deep";
    return std::nullopt;
  };
  const Fit fit = [](const Config& c, const std::vector<std::string>&) -> std::optional<Config> {
    if (*find(c, "tile") == "2") return cfg("tile=9,depth=1");  // a fit that changes the group's value: not taken
    return apply(c, cfg("depth=1"));
  };
  const Candidates c = candidates(g, cfg("tile=0,depth=4"), infeasible, fit);
  ASSERT_EQ(c.configs.size(), 2u);
  EXPECT_EQ(c.configs[1], cfg("tile=1,depth=1"));
  EXPECT_EQ(c.refitted, 1);
  EXPECT_EQ(c.infeasible, 2);
  EXPECT_EQ(c.enumerated, 4);
}

// A group read off a feasible set lists each value once, in the order first seen (a campaign's digest follows it).
TEST(Space, AGroupsAlternativesAreTheFeasibleSetsDistinctValuesInOrder) {
  const Group g = with_alternatives({"tile", {"tile"}, {}},
                                    {cfg("tile=2,depth=1"), cfg("tile=0,depth=4"), cfg("tile=2,depth=4")});
  EXPECT_EQ(g.alternatives, (std::vector<Config>{cfg("tile=2"), cfg("tile=0")}));
}

TEST(Space, AMalformedSpaceIsFoundBeforeTiming) {
  Space s;
  s.groups = {testkit::group("tile", {"tile"}, {"tile=0", "split=2"})};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { check_space(s, cfg("tile=0,split=1")); }),
                                "alternative 'split=2' does not set exactly its fields"));
  s.groups = {testkit::group("tile", {"tile"}, {"tile=0"})};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { check_space(s, cfg("split=1")); }),
                                "opens 'tile', which the warm start 'split=1' does not have"));
  s.groups = {testkit::group("none", {}, {})};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { check_space(s, cfg("a=1")); }), "opens no field"));
}

TEST(Space, DigestFollowsTheGroupsAndProductCountsTheGrid) {
  const Tunable t = testkit::synthetic_tunable();
  EXPECT_EQ(digest(t.space), digest(testkit::synthetic_tunable().space));
  Space changed = t.space;
  changed.groups[2].alternatives.pop_back();
  EXPECT_NE(digest(changed), digest(t.space));
  EXPECT_EQ(product_size(t.space), 6u * 5u * 5u * 3u);
}

// Held fields keep the warm start's values: alternatives that change one are gone from every group that opens it,
// a fit that would move one is refused, the other fields still move, and the digest records the narrower space.
TEST(Space, HeldFieldsKeepTheWarmStartsValues) {
  Tunable t;
  t.warm_start = cfg("tile=1,swap=0,depth=4");
  t.space.groups = {testkit::group("tile", {"tile", "swap"}, {"tile=0,swap=0", "tile=0,swap=1", "tile=2,swap=1"}),
                    testkit::group("pipeline", {"depth"}, {"depth=2", "depth=4"})};
  // The fit moves depth always, and swap when the tile is 3.
  t.space.fit = [](const Config& c, const std::vector<std::string>&) {
    return apply(c, *find(c, "tile") == "3" ? cfg("swap=1,depth=2") : cfg("depth=2"));
  };
  const Tunable held = hold(t, {"swap"});
  EXPECT_EQ(held.space.groups[0].alternatives, (std::vector<Config>{cfg("tile=0,swap=0")}));
  EXPECT_EQ(held.space.groups[1].alternatives, t.space.groups[1].alternatives);
  EXPECT_EQ(held.space.fit(cfg("tile=2,swap=0,depth=4"), {"tile"}), cfg("tile=2,swap=0,depth=2"));
  EXPECT_TRUE(t.space.fit(cfg("tile=3,swap=0,depth=4"), {"tile"}));
  EXPECT_FALSE(held.space.fit(cfg("tile=3,swap=0,depth=4"), {"tile"}));
  EXPECT_NE(digest(held.space), digest(t.space));
  EXPECT_EQ(digest(hold(t, {}).space), digest(t.space));
  // Holding a field no group opens removes no alternative, yet the fit is no longer the same: the digest says so.
  const Tunable depth_held = hold(t, {"depth"});
  EXPECT_EQ(depth_held.space.groups[0].alternatives, t.space.groups[0].alternatives);
  EXPECT_FALSE(depth_held.space.fit(cfg("tile=2,swap=0,depth=4"), {"tile"}));
  EXPECT_NE(digest(depth_held.space), digest(t.space));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { hold(t, {"stages"}); }),
                                "cannot hold 'stages': the configuration's fields are tile, swap, depth"));
}

}  // namespace
}  // namespace tilewise::tune
