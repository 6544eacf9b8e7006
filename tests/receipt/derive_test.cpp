#include "receipt/derive.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/problem.hpp"

namespace tilewise::receipt {
namespace {

using strings = std::vector<std::string>;

TEST(Median, OddCountIsTheMiddleValue) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({7.0}), 7.0);
  EXPECT_EQ(median({5.0, 100.0, 1.0, 2.0, 3.0}), 3.0);
}

TEST(Median, EvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(median({10.0, 20.0}), 15.0);
}

ArmResult timed_as(const std::string& name, double us) {
  ArmResult a;
  a.arm = name, a.correct = true, a.us_median = us;
  return a;
}

// "selected:floor" beside "selected:floor:refit.json" is the arm of that very name; a name two arms could extend is
// refused rather than read as whichever comes first.
TEST(TimedArm, TheArmOfThatVeryNameComesFirstAndTwoItCouldMeanAreRefused) {
  Result r;
  r.problem.name = "p";
  r.arms = {timed_as("selected:floor:refit.json", 1), timed_as("selected:floor", 2), timed_as("cublaslt", 3)};
  EXPECT_EQ(timed_arm(r, "selected:floor", true)->us_median, 2);
  EXPECT_EQ(timed_arm(r, "selected:floor:refit.json", true)->us_median, 1);
  EXPECT_EQ(timed_arm(r, "selected", false), nullptr);
  r.arms.push_back(timed_as("selected:floor:other.json", 4));
  EXPECT_EQ(timed_arm(r, "selected:floor", true)->us_median, 2);
  try {
    timed_arm(r, "selected", true);
    FAIL() << "two arms 'selected' could mean were not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could be 'selected:floor:refit.json' or 'selected:floor'"), std::string::npos)
        << e.what();
  }
  r.arms = {timed_as("selected:tune:db.json", 5)};
  EXPECT_EQ(timed_arm(r, "selected", true)->us_median, 5);
  r.arms[0].correct = false;
  EXPECT_EQ(timed_arm(r, "selected", true), nullptr);
}

TEST(CorrectnessBound, PerInputType) {
  EXPECT_EQ(correctness_bound(DType::bf16), 1e-2);
  EXPECT_EQ(correctness_bound(DType::fp16), 5e-3);
  EXPECT_EQ(correctness_bound(DType::fp8_e4m3), 1e-2);  // fp8 writes bf16
}

TEST(IsCorrect, WithinAndAtTheBound) {
  EXPECT_TRUE(is_correct(0.0, 1e-2));
  EXPECT_TRUE(is_correct(2e-3, 1e-2));
  EXPECT_TRUE(is_correct(1e-2, 1e-2));
  EXPECT_FALSE(is_correct(1.01e-2, 1e-2));
  EXPECT_FALSE(is_correct(6e-3, 5e-3));
}

TEST(IsCorrect, NegativeErrorIsNeverCorrect) {
  // A norm ratio cannot be negative; a receipt that says so was not written by the tool.
  EXPECT_FALSE(is_correct(-1e-3, 1e-2));
  EXPECT_FALSE(is_correct(-std::numeric_limits<double>::infinity(), 1e-2));
}

TEST(IsCorrect, MissingOrNonFiniteIsNeverCorrect) {
  const double big = std::numeric_limits<double>::max();
  EXPECT_FALSE(is_correct(std::nullopt, big));
  EXPECT_FALSE(is_correct(std::nan(""), big));
  EXPECT_FALSE(is_correct(std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()));
}

ArmResult arm(std::vector<double> us, std::vector<double> host_us = {}, bool correct = true) {
  ArmResult a;
  a.arm = "x";
  a.correct = correct;
  a.rel_err = correct ? 1e-3 : 0.5;
  a.us = std::move(us);
  a.host_us = std::move(host_us);
  return a;
}

TEST(Derive, FillsSummaryFromSamples) {
  const Problem p = make_problem("sq2048", 2048, 2048, 2048, DType::bf16, Layout::TN);
  ArmResult a = arm({26.0, 25.0, 27.0}, {28.0, 29.0, 30.0, 31.0});
  derive(a, p);
  EXPECT_EQ(a.us_median, 26.0);
  EXPECT_EQ(a.us_min, 25.0);
  EXPECT_EQ(a.us_max, 27.0);
  EXPECT_EQ(a.host_us_median, 29.5);
  // 2 * 2048^3 = 17179869184 flop in 26 us; 3 x 2048^2 x 2 B = 25165824 B in 26 us.
  ASSERT_TRUE(a.tflops && a.gbps);
  EXPECT_NEAR(*a.tflops, 660.7642, 1e-4);
  EXPECT_NEAR(*a.gbps, 967.9163, 1e-4);
}

TEST(Derive, Fp8ThroughputCountsOneByteInputs) {
  const Problem p = make_problem("f8", 4096, 4096, 4096, DType::fp8_e4m3, Layout::TN);
  ArmResult a = arm({100.0});
  derive(a, p);
  // (2 x 4096^2 x 1 B + 4096^2 x 2 B) = 67108864 B in 100 us; 2 x 4096^3 = 137438953472 flop.
  EXPECT_NEAR(*a.gbps, 671.08864, 1e-6);
  EXPECT_NEAR(*a.tflops, 1374.38953472, 1e-6);
}

TEST(Derive, IncorrectArmGetsNoThroughput) {
  const Problem p = make_problem("sq", 512, 512, 512, DType::bf16, Layout::TN);
  ArmResult a = arm({10.0, 11.0, 12.0}, {13.0, 14.0, 15.0}, /*correct=*/false);
  a.tflops = 999.0;  // left over from a writer that should not have set it
  a.us_median = 11.0;
  derive(a, p);
  EXPECT_FALSE(a.us_median);
  EXPECT_FALSE(a.us_min);
  EXPECT_FALSE(a.us_max);
  EXPECT_FALSE(a.host_us_median);
  EXPECT_FALSE(a.tflops);
  EXPECT_FALSE(a.gbps);
}

TEST(Derive, ArmWithoutSamplesGetsNothing) {
  const Problem p = make_problem("sq", 512, 512, 512, DType::bf16, Layout::TN);
  ArmResult a = arm({});
  derive(a, p);
  EXPECT_FALSE(a.us_median);
  EXPECT_FALSE(a.tflops);
}

ArmResult timed(const char* name, std::vector<double> us) {
  ArmResult a = arm(std::move(us));
  a.arm = name;
  derive(a, make_problem("sq", 512, 512, 512, DType::bf16, Layout::TN));
  return a;
}

TEST(Compare, DisjointFasterRangeClaimsFaster) {
  const Comparison c = compare(timed("new", {10, 11, 12}), timed("base", {13, 14, 15}));
  EXPECT_EQ(c.arm, "new");
  EXPECT_EQ(c.baseline, "base");
  EXPECT_DOUBLE_EQ(c.speedup, 14.0 / 11.0);
  EXPECT_FALSE(c.overlap);
  EXPECT_EQ(c.claim, "faster");
}

TEST(Compare, DisjointSlowerRangeClaimsSlower) {
  const Comparison c = compare(timed("new", {13, 14, 15}), timed("base", {10, 11, 12}));
  EXPECT_DOUBLE_EQ(c.speedup, 11.0 / 14.0);
  EXPECT_FALSE(c.overlap);
  EXPECT_EQ(c.claim, "slower");
}

TEST(Compare, OverlappingRangesClaimNothing) {
  // The medians differ (11 vs 14) but one repeat of the arm (15) is slower than one of the baseline's (13).
  const Comparison c = compare(timed("new", {10, 11, 15}), timed("base", {13, 14, 15}));
  EXPECT_DOUBLE_EQ(c.speedup, 14.0 / 11.0);
  EXPECT_TRUE(c.overlap);
  EXPECT_EQ(c.claim, "none");
}

TEST(Compare, TouchingRangesOverlap) {
  const Comparison c = compare(timed("new", {10, 11, 13}), timed("base", {13, 14, 15}));
  EXPECT_TRUE(c.overlap);
  EXPECT_EQ(c.claim, "none");
}

TEST(Compare, ArmWithoutTimeClaimsNothing) {
  ArmResult broken = arm({10, 11, 12}, {}, /*correct=*/false);
  derive(broken, make_problem("sq", 512, 512, 512, DType::bf16, Layout::TN));
  const Comparison c = compare(broken, timed("base", {13, 14, 15}));
  EXPECT_EQ(c.speedup, 0.0);
  EXPECT_TRUE(c.overlap);
  EXPECT_EQ(c.claim, "none");
}

TEST(Compare, ArmWithPartialSummaryClaimsNothing) {
  // A tampered receipt can carry a median without its range; compare must not read the missing values.
  ArmResult partial = timed("new", {10, 11, 12});
  partial.us_min.reset();
  partial.us_max.reset();
  const ArmResult base = timed("base", {13, 14, 15});
  for (const Comparison& c : {compare(partial, base), compare(base, partial)}) {
    EXPECT_EQ(c.speedup, 0.0);
    EXPECT_TRUE(c.overlap);
    EXPECT_EQ(c.claim, "none");
  }
}

TEST(ReadBandwidth, BytesOverMedianTime) {
  // 1 GB in a median 500 us is 2000 GB/s.
  EXPECT_DOUBLE_EQ(read_bw_gbps(ReadBandwidth{1'000'000'000, {1000.0, 500.0, 250.0}}), 2000.0);
  EXPECT_EQ(read_bw_gbps(ReadBandwidth{1'000'000'000, {}}), 0.0);
}

TEST(RotationSetBytes, SumsTheThreeAllocations) {
  const Problem p = make_problem("ex", 128, 64, 256, DType::bf16, Layout::TN, 8);
  EXPECT_EQ(rotation_set_bytes(p), 67584 + 33792 + 17408);
}

ClockSample at(int sm_mhz, double power_w, int temp_c, uint64_t reasons) {
  return ClockSample{0, sm_mhz, 3201, power_w, temp_c, reasons};
}

TEST(Summarize, MinMedianMaxAndUnionOfReasons) {
  const ClockSummary s =
      summarize({at(1700, 600, 50, 0x4), at(1500, 650, 61, 0x20), at(1900, 700, 55, 0), at(1800, 500, 58, 0x4)});
  EXPECT_EQ(s.samples, 4);
  EXPECT_EQ(s.sm_mhz_min, 1500);
  EXPECT_EQ(s.sm_mhz_median, 1750);
  EXPECT_EQ(s.sm_mhz_max, 1900);
  EXPECT_EQ(s.power_w_median, 625.0);
  EXPECT_EQ(s.power_w_max, 700.0);
  EXPECT_EQ(s.temp_c_max, 61);
  EXPECT_EQ(s.reasons, (strings{"sw_power_cap", "sw_thermal"}));
}

TEST(Summarize, MedianRoundsToWholeMegahertz) {
  EXPECT_EQ(summarize({at(1700, 0, 0, 0), at(1705, 0, 0, 0)}).sm_mhz_median, 1703);  // 1702.5 rounds away
}

TEST(Summarize, NoSamples) {
  const ClockSummary s = summarize({});
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.sm_mhz_median, 0);
  EXPECT_TRUE(s.reasons.empty());
}

TEST(ReasonNames, NvmlBits) {
  EXPECT_TRUE(reason_names(0).empty());
  EXPECT_EQ(reason_names(0x1), strings{"gpu_idle"});
  EXPECT_EQ(reason_names(0x2), strings{"applications_clocks"});
  EXPECT_EQ(reason_names(0x4), strings{"sw_power_cap"});
  EXPECT_EQ(reason_names(0x8), strings{"hw_slowdown"});
  EXPECT_EQ(reason_names(0x10), strings{"sync_boost"});
  EXPECT_EQ(reason_names(0x20), strings{"sw_thermal"});
  EXPECT_EQ(reason_names(0x40), strings{"hw_thermal"});
  EXPECT_EQ(reason_names(0x80), strings{"hw_power_brake"});
  EXPECT_EQ(reason_names(0x100), strings{"display_clocks"});
  EXPECT_EQ(reason_names(0x8 | 0x40 | 0x80), (strings{"hw_slowdown", "hw_thermal", "hw_power_brake"}));
  EXPECT_EQ(reason_names(0x4 | 0x1000), (strings{"sw_power_cap", "other(0x1000)"}));  // unknown bits are not dropped
}

}  // namespace
}  // namespace tilewise::receipt
