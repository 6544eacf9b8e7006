// The floor: a family is taken only where every one of the problem's nearest measured neighbours of its class found
// that family faster than cublaslt-default beyond noise; the fit picks its constants on one half and never counts
// a point as its own neighbour; the rule's file refuses what it cannot trust.
#include "select/floor.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "expect_error.hpp"
#include "families/registry.hpp"
#include "receipt/sample_receipt.hpp"
#include "sample_floor.hpp"
#include "select/floor_fit.hpp"

namespace tilewise::select {
namespace {

using testkit::Contains;
using testkit::problem;

TEST(Floor, TakesAFamilyOnlyWhenEveryNearestNeighbourWasFaster) {
  const FloorRule r = testkit::sample_floor();
  const FloorVerdict near = judge(r, problem(4096, 4096, 5120), "sm90");
  EXPECT_TRUE(near.taken);
  ASSERT_EQ(near.neighbours.size(), 2u);
  EXPECT_DOUBLE_EQ(near.score, 1.04);  // the least of the two nearest
  const FloorVerdict mixed = judge(r, problem(1024, 1024, 1280), "sm90");
  EXPECT_FALSE(mixed.taken);
  EXPECT_TRUE(Contains(mixed.why, "not faster than cublaslt-default"));
  const FloorVerdict far = judge(r, problem(64, 64, 64), "sm90");
  EXPECT_FALSE(far.taken);
  EXPECT_TRUE(Contains(far.why, "0 of the 2 measured sm90 problems needed lie within 1.00"));
  EXPECT_FALSE(judge(r, problem(4096, 4096, 5120), "gemv").taken);  // no gemv point near
}

TEST(Floor, NeighboursShareTheDtypeLayoutAndVendorAlignment) {
  const FloorRule r = testkit::sample_floor();
  EXPECT_FALSE(judge(r, problem(4096, 4096, 5120, DType::fp16), "sm90").taken);
  EXPECT_FALSE(judge(r, problem(4096, 4096, 5120, DType::bf16, Layout::NN), "sm90").taken);
  Problem unaligned = problem(4096, 4096, 5120);
  unaligned.ldc = 4100;  // not a multiple of 8: cuBLASLt's alignment cliff is another class
  EXPECT_FALSE(vendor_aligned(unaligned));
  EXPECT_FALSE(judge(r, unaligned, "sm90").taken);
  EXPECT_TRUE(vendor_aligned(problem(1, 4096, 4096)));  // one row: ldc = 1 is no cliff
}

TEST(Floor, PicksTheBestScoringCandidateAndNoneOnAnotherGpu) {
  const FloorRule r = testkit::sample_floor();
  EXPECT_EQ(floor_pick(r, problem(12288, 2, 4096), {"gemv", "sm90"}), "gemv");
  EXPECT_EQ(floor_pick(r, problem(12288, 2, 4096), {"sm90"}), std::nullopt);
  Identity other = testkit::kH200;
  EXPECT_EQ(floor_pick(r, problem(12288, 2, 4096), {"gemv"}, &other), "gemv");
  other.sm_count = 114;
  EXPECT_EQ(floor_pick(r, problem(12288, 2, 4096), {"gemv"}, &other), std::nullopt);
  other = testkit::kH200, other.cc = "10.0";
  EXPECT_FALSE(holds_on(r, other));
  EXPECT_TRUE(holds_on(r, testkit::other_driver()));  // a driver update keeps the rule; the database says more
}

// A floor measured before a family's rule changed: a point timed with a configuration the rule no longer chooses says
// nothing of what would run there, so it counts as not faster and the floor takes less, never more.
TEST(Floor, APointTimedWithAConfigurationTheRuleNoLongerChoosesCountsAsNotFaster) {
  FloorRule r = testkit::sample_floor();
  ASSERT_TRUE(judge(r, problem(4096, 4096, 5120), "sm90").taken);
  r.points[1].families.at("sm90").current = false;  // 4096 x 4096 x 6144, measured faster
  const FloorVerdict v = judge(r, problem(4096, 4096, 5120), "sm90");
  EXPECT_FALSE(v.taken);
  EXPECT_TRUE(Contains(v.why, "bf16 TN 4096x4096x6144")) << v.why;
  EXPECT_TRUE(Contains(v.why, "which its rule no longer chooses there")) << v.why;
  EXPECT_EQ(count_not_current(r), 1);
}

TEST(Floor, MarkCurrentAsksEachFamilysRule) {
  const families::Family& sm90_family = families::family("sm90");
  const Problem square = problem(4096, 4096, 4096), decode = problem(8, 12288, 4096);
  const std::string sm90 = *sm90_family.rule(square, 132);
  const std::string gemv = *families::family("gemv").rule(decode, 132);
  const std::string other = sm90_family.canonical(testkit::kSm90A);
  ASSERT_NE(other, sm90);
  FloorRule r;
  r.sm_count = 132;
  r.points = {testkit::point(square, {{"sm90", {1.05, "faster", sm90}}}),
              testkit::point(square, {{"sm90", {1.05, "faster", other}}}),
              testkit::point(decode, {{"gemv", {1.10, "faster", gemv}}, {"sm90", {0.5, "slower", sm90}}}),
              testkit::point(square, {{"no-such-family", {1.2, "faster", sm90}}})};
  mark_current(r);
  EXPECT_TRUE(r.points[0].families.at("sm90").current);
  EXPECT_FALSE(r.points[1].families.at("sm90").current);
  EXPECT_TRUE(r.points[2].families.at("gemv").current);
  EXPECT_FALSE(r.points[2].families.at("sm90").current);  // sm90's rule on a decode shape is not its square tile
  EXPECT_FALSE(r.points[3].families.at("no-such-family").current);
  EXPECT_EQ(count_not_current(r), 3);
  // The rules are asked on the floor's SMs: a square whose tile the rule sizes to the SMs' waves is current on its
  // own GPU only.
  std::optional<Problem> wave_sized;
  for (int64_t n = 512; n <= 8192 && !wave_sized; n += 256)
    if (sm90_family.rule(problem(n, n, n), 132) != sm90_family.rule(problem(n, n, n), 66)) wave_sized = problem(n, n, n);
  ASSERT_TRUE(wave_sized);
  FloorRule sized;
  sized.sm_count = 132;
  sized.points = {testkit::point(*wave_sized, {{"sm90", {1.05, "faster", *sm90_family.rule(*wave_sized, 132)}}})};
  mark_current(sized);
  EXPECT_TRUE(sized.points[0].families.at("sm90").current);
  sized.sm_count = 66;
  mark_current(sized);
  EXPECT_FALSE(sized.points[0].families.at("sm90").current);
}

TEST(Floor, PointsKeepTheConfigurationEachFamilyRanAndAreMarked) {
  receipt::Receipt rc = receipt::sample_receipt();
  ASSERT_EQ(rc.results.size(), 2u);
  const std::string chosen = *families::family("sm90").rule(rc.results[0].problem, 132);
  std::string other = testkit::kSm90A;
  if (families::family("sm90").canonical(other) == families::family("sm90").rule(rc.results[1].problem, 132))
    other = testkit::kSm90B;
  for (size_t i = 0; i < 2; ++i) {
    receipt::ArmResult a = rc.results[i].arms.back();  // cublaslt-default's samples, under sm90's name
    a.arm = "sm90";
    a.config = {{"config", i == 0 ? chosen : other}, {"grid", 132}};
    rc.results[i].arms.push_back(a);
  }
  receipt::refresh_derived(rc);
  const std::vector<FloorPoint> points = floor_points({rc}, {{"sm90", "sm90"}});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].families.at("sm90").config, chosen);
  EXPECT_TRUE(points[0].families.at("sm90").current);
  EXPECT_EQ(points[1].families.at("sm90").config, families::family("sm90").canonical(other));
  EXPECT_FALSE(points[1].families.at("sm90").current);
  // An arm that names no configuration cannot stand in the floor: which kernel it timed is unknown; nor can a
  // machine without SMs.
  receipt::Receipt no_sms = rc;
  no_sms.machine.sm_count = 0;
  EXPECT_TRUE(Contains(testkit::error_of([&] { floor_points({no_sms}, {{"sm90", "sm90"}}); }), "names 0 SMs"));
  rc.results[1].arms.back().config = nlohmann::json::object();
  EXPECT_TRUE(Contains(testkit::error_of([&] { floor_points({rc}, {{"sm90", "sm90"}}); }), "with no configuration"));
  rc.results[1].arms.back().config = {{"config", "block_m=wide"}};
  EXPECT_TRUE(Contains(testkit::error_of([&] { floor_points({rc}, {{"sm90", "sm90"}}); }), "arm sm90 on"));
}

// A stale outcome re-timed alone: the later receipt's outcome of that family on that problem replaces the earlier
// one's; the problem stays one point, and what the later receipt did not time stays.
TEST(Floor, ALaterReceiptsOutcomeReplacesTheEarlierOnesForThatFamily) {
  receipt::Receipt first = receipt::sample_receipt();
  ASSERT_EQ(first.results.size(), 2u);
  std::string stale = testkit::kSm90A;
  if (families::family("sm90").canonical(stale) == families::family("sm90").rule(first.results[0].problem, 132))
    stale = testkit::kSm90B;
  for (receipt::Result& res : first.results) {
    receipt::ArmResult a = res.arms.back();
    a.arm = "sm90";
    a.config = {{"config", stale}};
    res.arms.push_back(a);
  }
  receipt::refresh_derived(first);
  receipt::Receipt again = first;  // the first problem alone, with the configuration the rule now chooses
  again.results.resize(1);
  again.results[0].arms.back().config = {{"config", *families::family("sm90").rule(again.results[0].problem, 132)}};
  receipt::refresh_derived(again);
  const std::vector<FloorPoint> before = floor_points({first}, {{"sm90", "sm90"}});
  ASSERT_EQ(before.size(), 2u);
  EXPECT_FALSE(before[0].families.at("sm90").current);
  const std::vector<FloorPoint> points = floor_points({first, again}, {{"sm90", "sm90"}});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].problem, first.results[0].problem);
  EXPECT_TRUE(points[0].families.at("sm90").current);
  EXPECT_EQ(points[1], before[1]);
  // In the other order the stale outcome is the later one, and it stands.
  EXPECT_FALSE(floor_points({again, first}, {{"sm90", "sm90"}})[0].families.at("sm90").current);
}

// The gemv family records its configuration under another key, and in nn.Linear's orientation (tokens as N) its
// rule works on the transposed view: both must meet what the rule chooses, or every gemv point would go stale.
TEST(Floor, GemvPointsInNnLinearsOrientationAreCurrent) {
  receipt::Receipt rc = receipt::sample_receipt();
  rc.results.resize(1);
  rc.results[0].problem = problem(12288, 8, 4096);  // y = x W^T at 8 tokens: F = 12288 as M, T = 8 as N
  const std::optional<std::string> chosen = families::family("gemv").rule(rc.results[0].problem, 132);
  ASSERT_TRUE(chosen);
  receipt::ArmResult a = rc.results[0].arms.back();
  a.arm = "gemv";
  a.config = {{"family", "gemv"}, {"canonical", *chosen}, {"tokens_as_n", true}};
  rc.results[0].arms.push_back(a);
  receipt::refresh_derived(rc);
  const std::vector<FloorPoint> points = floor_points({rc}, {{"gemv", "gemv"}});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].families.at("gemv").config, *chosen);
  EXPECT_TRUE(points[0].families.at("gemv").current);
}

// Whatever the problem, a family the floor takes was measured faster at every neighbour the verdict names, all of
// the problem's class and within the radius.
TEST(Floor, NeverTakesAFamilyTheSweepDidNotMeasureFasterForThatClass) {
  std::mt19937 rng(7);
  FloorRule r = testkit::sample_floor();
  std::uniform_real_distribution<double> u(0, 1);
  const auto draw = [&] {
    const auto size = [&](double lo, double hi) { return int64_t(std::exp2(lo + (hi - lo) * u(rng))) / 8 * 8 + 8; };
    return make_problem("", size(0, 14), size(0, 14), size(8, 14), u(rng) < 0.5 ? DType::bf16 : DType::fp16,
                        u(rng) < 0.7 ? Layout::TN : Layout::NN, u(rng) < 0.3 ? 1 : 0);
  };
  for (int i = 0; i < 300; ++i) {  // a random floor of 300 points
    std::map<std::string, Outcome> f;
    for (const char* fam : {"sm90", "gemv"})
      if (u(rng) < 0.7) f[fam] = u(rng) < 0.6 ? testkit::faster(1 + u(rng)) : testkit::slower(u(rng));
    r.points.push_back({draw(), f});
  }
  int taken = 0;
  for (int i = 0; i < 3000; ++i) {
    const Problem p = draw();
    for (const char* fam : {"sm90", "gemv"}) {
      const FloorVerdict v = judge(r, p, fam);
      if (!v.taken) continue;
      ++taken;
      ASSERT_EQ(v.neighbours.size(), size_t(r.neighbours));
      for (size_t n : v.neighbours) {
        EXPECT_EQ(floor_class(r.points[n].problem), floor_class(p));
        EXPECT_EQ(r.points[n].families.at(fam).claim, "faster");
      }
    }
  }
  EXPECT_GT(taken, 10);  // the property was exercised
}

TEST(FloorFit, ChoosesConstantsLeavingEachPointOutAndScoresOnlyWhatItPicks) {
  // sm90 faster on a band of K, slower outside: a fit that counted a point as its own neighbour would take one
  // neighbour at any radius; left out, lone points have no neighbour.
  std::vector<FloorPoint> train;
  for (int64_t k = 1024; k <= 8192; k += 512) train.push_back(testkit::point(problem(4096, 4096, k), {{"sm90", testkit::faster(1.05)}}));
  for (int64_t k = 256; k < 1024; k += 128) train.push_back(testkit::point(problem(4096, 4096, k), {{"sm90", testkit::slower(0.9)}}));
  FloorRule base;
  base.gpu = "NVIDIA H200", base.sm_count = 132, base.cc = "9.0";
  const FloorFit fit = fit_floor(base, train);
  EXPECT_EQ(fit.tried.size(), 42u);
  EXPECT_EQ(fit.leave_one_out.slower, 0);
  EXPECT_GT(fit.leave_one_out.taken, 5);
  EXPECT_EQ(fit.rule.points.size(), train.size());
  const std::vector<FloorPoint> judged = {testkit::point(problem(4096, 4096, 3000), {{"sm90", testkit::faster(1.06)}}),
                                          testkit::point(problem(4096, 4096, 300), {{"sm90", testkit::slower(0.8)}}),
                                          testkit::point(problem(100, 100, 100), {})};
  FloorScore s = score_floor(fit.rule, judged);
  // A family taken on a judged point timed with a configuration its rule no longer chooses counts as slower, at no
  // more than 1x: what would run there was not timed.
  std::vector<FloorPoint> stale = judged;
  stale[0].families.at("sm90").current = false;
  const FloorScore unknown = score_floor(fit.rule, stale);
  EXPECT_EQ(unknown.taken, 1);
  EXPECT_EQ(unknown.faster, 0);
  EXPECT_EQ(unknown.slower, 1);
  EXPECT_DOUBLE_EQ(unknown.worst, 1.0);
  EXPECT_EQ(s.problems, 3);
  EXPECT_EQ(s.taken, 1);
  EXPECT_EQ(s.faster, 1);
  EXPECT_EQ(s.slower, 0);
  EXPECT_NEAR(s.geomean, std::cbrt(1.06), 1e-12);  // cuBLASLt's default counts 1x
  EXPECT_TRUE(Contains(floor_report(fit, s, judged), "| judged half | 3 | 1 | 1 | 0 | 0 |"));
  EXPECT_FALSE(Contains(floor_report(fit, s, judged), "no longer chooses"));
  EXPECT_TRUE(Contains(floor_report(fit, unknown, stale), "- sm90 on : timed with timed"));
}

TEST(FloorFile, RoundTripsAndTheShippedRuleParses) {
  const FloorRule r = testkit::sample_floor();
  EXPECT_EQ(parse_floor(to_json(r), "mem"), r);
  const FloorRule& shipped = shipped_floor();
  EXPECT_EQ(shipped.gpu, "NVIDIA H200");
  EXPECT_EQ(shipped.sm_count, 132);
  // Every configuration it timed is one its family reads, so a rule that still chooses it is recognised; and what a
  // family records meets what its rule says: were the two forms apart, every outcome of the family would be stale
  // and the floor would quietly stop taking it. (Five sm90 outcomes of 2026-12-04 are not current: the rule's widths
  // narrowed after their sweep, docs/notes/2026-12-05-floor-current.md.)
  std::map<std::string, std::pair<int, int>> stale_of;  // family -> (not current, outcomes)
  for (const FloorPoint& pt : shipped.points)
    for (const auto& [family, o] : pt.families) {
      EXPECT_EQ(families::family(family).canonical(o.config), o.config) << pt.problem.name << " " << family;
      stale_of[family].first += !o.current, ++stale_of[family].second;
    }
  for (const auto& [family, counts] : stale_of)
    EXPECT_LT(counts.first * 20, counts.second) << family << ": " << counts.first << " of " << counts.second;
}

TEST(FloorFile, BadInputIsRefusedNamingTheField) {
  const nlohmann::json good = to_json(testkit::sample_floor());
  const auto error = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return testkit::error_of([&] { parse_floor(j, "f.json"); });
  };
  EXPECT_TRUE(Contains(error([](auto& j) { j["schema"] = "tilewise.floor/3"; }), "f.json: /schema"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["schema"] = "tilewise.floor/1"; }), "fit it again with `tilewise floor fit`"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][0]["families"]["sm90"].erase("config"); }),
                       "/points/0/families/sm90: missing field 'config'"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][0]["families"]["sm90"]["config"] = ""; }),
                       "/points/0/families/sm90/config: must name the configuration the family ran"));
  EXPECT_TRUE(Contains(error([](auto& j) { j.erase("gpu"); }), "f.json: /: missing field 'gpu'"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["sm_count"] = 0; }), "/sm_count: 0 is not an SM count (1..1024)"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["sm_count"] = 4294967297LL; }), "is not an SM count"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["neighbours"] = 0; }), "/neighbours: must be at least 1"));
  // 2^32 + 6 once read as 6 neighbours: a count an int cannot hold is refused, not wrapped.
  EXPECT_TRUE(Contains(error([](auto& j) { j["neighbours"] = 4294967302LL; }),
                       "/neighbours: 4294967302 is not a count (0..2147483647)"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["radius"] = -1.0; }), "/radius: must be a positive finite number"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][0]["families"]["sm90"]["speedup"] = 0.0; }),
                       "/points/0/families/sm90/speedup: must be a positive finite number"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][1]["families"]["sm90"]["claim"] = "maybe"; }),
                       "/points/1/families/sm90/claim: 'maybe' is not faster, slower or none"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][2]["problem"]["M"] = -5; }), "/points/2/problem"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"][2]["problem"].erase("ldc"); }), "/points/2/problem"));
  EXPECT_TRUE(Contains(error([](auto& j) { j["points"] = 3; }), "/points"));
}

}  // namespace
}  // namespace tilewise::select
