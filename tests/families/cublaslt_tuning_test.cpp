// cuBLASLt's configuration space as the tuner's: groups by mechanism from made-up capabilities, cuBLASLt's check as
// the feasibility rule (here a stand-in rule), and a descent over it that never times what the check refuses.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "families/cublaslt/tuning.hpp"
#include "tune/descent.hpp"
#include "tune/scripted_measure.hpp"
#include "tune/space.hpp"

namespace tilewise::tune {
namespace {

std::vector<cublaslt::AlgoCaps> some_caps() {
  cublaslt::AlgoCaps big{66, {10, 20}, {1, 2}, true, 1 | 2, true, 2};
  cublaslt::AlgoCaps plain{21, {0}, {0}, false, 0, false, 0};
  return {big, plain};
}

// Algorithm 21 neither splits nor clusters nor has options; 66 cannot run tile 20 with stages 2.
std::optional<std::string> rule(const cublaslt::Config& c) {
  if (c.algo_id == 21 && (c.splitk > 1 || c.cluster != 0 || c.custom != 0 || c.swizzle != 0)) return "algo 21 is plain";
  if (c.algo_id == 66 && c.tile == 20 && c.stages == 2) return "tile 20 does not fit 2";
  if (c.splitk == 1 && c.reduction != 0) return "nothing to reduce";
  return std::nullopt;
}

cublaslt::Config warm() {
  cublaslt::Config c;
  c.algo_id = 66, c.tile = 10, c.stages = 1, c.splitk = 4, c.reduction = 2, c.swizzle = 1, c.custom = 2, c.cluster = 3;
  return c;
}

TEST(CublasltSpace, GroupsByMechanismInOrderOfImpact) {
  const Space s = cublaslt::space(some_caps(), rule);
  ASSERT_EQ(s.groups.size(), 4u);
  EXPECT_EQ(s.groups[0].name, "kernel");
  EXPECT_EQ(s.groups[0].fields, (std::vector<std::string>{"algo", "tile", "stages", "inner"}));
  EXPECT_EQ(s.groups[1].name, "split");
  EXPECT_EQ(s.groups[1].fields, (std::vector<std::string>{"splitk", "reduction"}));
  EXPECT_EQ(s.groups[2].name, "mapping");
  EXPECT_EQ(s.groups[2].fields, (std::vector<std::string>{"swizzle", "cluster"}));
  EXPECT_EQ(s.groups[3].name, "custom");
  EXPECT_EQ(s.groups[3].fields, (std::vector<std::string>{"custom"}));
  EXPECT_NO_THROW(check_space(s, cublaslt::tuner_fields(warm())));
}

TEST(CublasltSpace, AlternativesComeFromTheCapabilities) {
  const Space s = cublaslt::space(some_caps(), rule);
  // Every tile x stages of each algorithm: 2 x 2 for 66, the undefined pair for 21.
  EXPECT_EQ(s.groups[0].alternatives.size(), 5u);
  EXPECT_NE(std::find(s.groups[0].alternatives.begin(), s.groups[0].alternatives.end(),
                      parse("algo=21,tile=0,stages=0,inner=0")),
            s.groups[0].alternatives.end());
  // No split, then each split with each reduction scheme some splitting algorithm allows.
  EXPECT_EQ(s.groups[1].alternatives.front(), parse("splitk=1,reduction=0"));
  EXPECT_EQ(s.groups[1].alternatives.size(), 1 + 2 * (cublaslt::splitk_values().size() - 1));
  EXPECT_EQ(s.groups[2].alternatives.size(), 2 * cublaslt::cluster_values().size());
  EXPECT_EQ(s.groups[3].alternatives.size(), 3u);  // custom 0..2
}

TEST(CublasltSpace, ClusterShapesAreAutoAndPowersOfTwoUpToEight) {
  const std::vector<uint16_t> ids = cublaslt::cluster_values();
  const auto has = [&](uint16_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  EXPECT_TRUE(has(0));   // AUTO
  EXPECT_TRUE(has(2));   // 1x1x1
  EXPECT_TRUE(has(3));   // 2x1x1
  EXPECT_TRUE(has(5));   // 1x2x1
  EXPECT_TRUE(has(9));   // 2x4x1
  EXPECT_FALSE(has(10));  // 4x4x1: 16 CTAs
  EXPECT_FALSE(has(15));  // 16x1x1
  EXPECT_FALSE(has(17));  // 3x1x1
}

TEST(CublasltSpace, ConfigurationsConvertThroughTheCanonicalString) {
  EXPECT_EQ(cublaslt::from_fields(cublaslt::tuner_fields(warm())), warm());
  EXPECT_EQ(to_string(cublaslt::tuner_fields(warm())), cublaslt::to_string(warm()));
}

TEST(CublasltSpace, TheCheckIsAskedOncePerConfiguration) {
  int asked = 0;
  const Space s = cublaslt::space(some_caps(), [&](const cublaslt::Config& c) {
    ++asked;
    return rule(c);
  });
  const Config c = cublaslt::tuner_fields(warm());
  EXPECT_FALSE(s.infeasible(c));
  EXPECT_FALSE(s.infeasible(c));
  EXPECT_EQ(asked, 1);
}

TEST(CublasltSpace, AKernelRoundCandidateIsFittedToTheDefaultsOfTheOtherGroups) {
  const Space s = cublaslt::space(some_caps(), rule);
  const Candidates c = candidates(s.groups[0], cublaslt::tuner_fields(warm()), s.infeasible, s.fit);
  // Algorithm 21 cannot take the incumbent's split, option or cluster: it is kept with all three reset.
  const Config plain = parse(cublaslt::to_string(cublaslt::Config{21, 0, 0, 1, 0, 0, 0, 0, 0}));
  EXPECT_NE(std::find(c.configs.begin(), c.configs.end(), plain), c.configs.end());
  EXPECT_GE(c.refitted, 1);
  for (const Config& cfg : c.configs) EXPECT_FALSE(rule(cublaslt::from_fields(cfg))) << to_string(cfg);
}

TEST(CublasltSpace, ADescentNeverTimesWhatTheCheckRefusesAndNeverGetsSlower) {
  const Tunable t{cublaslt::space(some_caps(), rule), cublaslt::tuner_fields(warm())};
  testkit::ScriptedMeasure m;
  m.truth = [](const Config& c) {
    return 100.0 * (0.7 + 0.6 * testkit::unit(testkit::hash(3, to_string(c))));
  };
  const Case k{"k", "cublaslt", make_problem("p", 1024, 1024, 1024, DType::bf16, Layout::TN)};
  CaseResult r = start_case(k, t, "descent");
  descend(r, t, m);
  EXPECT_EQ(r.status, Status::finished);
  EXPECT_TRUE(testkit::rounds_are_groups_then_confirm(r, 4));
  for (const auto& list : m.asked) {
    EXPECT_EQ(list.front(), parse(r.rounds[&list - &m.asked[0]].incumbent));
    for (const Config& c : list) EXPECT_FALSE(rule(cublaslt::from_fields(c))) << to_string(c);
  }
  const std::vector<double> traj = trajectory(r);
  for (size_t i = 1; i < traj.size(); ++i) EXPECT_LE(traj[i], traj[i - 1]);
}

TEST(CublasltSpace, NoAlgorithmIsUnsupported) {
  EXPECT_THROW(cublaslt::space({}, rule), Unsupported);
}

}  // namespace
}  // namespace tilewise::tune
