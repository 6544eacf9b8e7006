// Judging preregistered predictions on a scripted receipt: held, missed high, missed low, not measured, and the
// claim rule on speedups.
#include <gtest/gtest.h>

#include "receipt/sample_receipt.hpp"
#include "receipt/verdict.hpp"

namespace tilewise::receipt {
namespace {

Prediction predict(const char* metric, double low, double high, const char* problem = "sq2048",
                   const char* dtype = "bf16", const char* arm = "cublaslt", const char* baseline = "") {
  Prediction p;
  p.id = "P";
  p.problem = problem;
  p.dtype = dtype;
  p.layout = "TN";
  p.metric = metric;
  p.arm = arm;
  p.baseline = baseline;
  p.low = low;
  p.high = high;
  return p;
}

Prediction judged(Prediction p, const Receipt& r = sample_receipt()) {
  judge(p, r);
  return p;
}

TEST(Verdict, HeldMissedHighMissedLow) {
  // sq2048 cublaslt: samples 25.9, 26.1, 26.0 -> median 26.0 us
  EXPECT_EQ(judged(predict("us_median", 25, 27)).verdict, "held");
  EXPECT_EQ(judged(predict("us_median", 26, 26)).verdict, "held");  // the range is inclusive
  EXPECT_EQ(judged(predict("us_median", 20, 25)).verdict, "missed high");
  EXPECT_EQ(judged(predict("us_median", 27, 30)).verdict, "missed low");
  EXPECT_DOUBLE_EQ(*judged(predict("us_median", 25, 27)).measured, 26.0);
}

TEST(Verdict, ThroughputAndBandwidthFraction) {
  const Receipt r = sample_receipt();
  const ArmResult& arm = r.results[0].arms[0];
  EXPECT_DOUBLE_EQ(*judged(predict("tflops", 0, 1e9)).measured, *arm.tflops);
  EXPECT_DOUBLE_EQ(*judged(predict("gbps", 0, 1e9)).measured, *arm.gbps);
  EXPECT_DOUBLE_EQ(*judged(predict("bandwidth_fraction", 0, 1)).measured, *arm.gbps / r.machine.read_bw_gbps);
}

TEST(Verdict, SpeedupCarriesTheClaimRule) {
  // sq2048: cublaslt 25.9-26.1 against the default's 27.4-27.6: no overlap, a claimed win.
  const Prediction sq = judged(predict("speedup", 1.0, 1.1, "sq2048", "bf16", "cublaslt", "cublaslt-default"));
  EXPECT_NEAR(*sq.measured, 27.5 / 26.0, 1e-12);
  EXPECT_EQ(sq.verdict, "held");
  EXPECT_EQ(sq.claim, "faster");
  // dec_m16_12288: the ranges overlap, so whatever the ratio, nothing is claimed.
  const Prediction dec = judged(predict("speedup", 1.0, 1.1, "dec_m16_12288", "fp16", "cublaslt", "cublaslt-default"));
  EXPECT_EQ(dec.claim, "none");
  EXPECT_EQ(dec.verdict, "held");
}

TEST(Verdict, NotMeasuredSaysWhy) {
  const Prediction absent = judged(predict("us_median", 0, 1, "sq4096"));
  EXPECT_EQ(absent.verdict, "not measured");
  EXPECT_FALSE(absent.measured);
  EXPECT_NE(absent.reason.find("sq4096 bf16 TN is not among the results"), std::string::npos) << absent.reason;

  Receipt skipped = sample_receipt();
  skipped.skipped.push_back({"sq4096 bf16 TN 4096x4096x4096 lda=4096 ldb=4096 ldc=4096", "out of memory"});
  EXPECT_NE(judged(predict("us_median", 0, 1, "sq4096"), skipped).reason.find("was skipped: out of memory"),
            std::string::npos);

  EXPECT_NE(judged(predict("us_median", 0, 1, "sq2048", "bf16", "sm90")).reason.find("arm sm90 is not in the result"),
            std::string::npos);

  Receipt declined = sample_receipt();
  decline(declined.results[0].arms[0], "no fp8 kernel");
  refresh_derived(declined);
  EXPECT_NE(judged(predict("us_median", 0, 1, "sq2048"), declined).reason.find("arm cublaslt declined the problem: no fp8 kernel"),
            std::string::npos);

  Receipt wrong = sample_receipt();
  wrong.results[0].arms[0].correct = false;
  wrong.results[0].arms[0].rel_err = 0.5;
  derive(wrong.results[0].arms[0], wrong.results[0].problem);
  const Prediction incorrect = judged(predict("us_median", 0, 100), wrong);
  EXPECT_EQ(incorrect.verdict, "not measured");
  EXPECT_NE(incorrect.reason.find("arm cublaslt was incorrect"), std::string::npos) << incorrect.reason;

  const Prediction no_base = judged(predict("speedup", 0, 2, "sq2048", "bf16", "cublaslt", "torch"));
  EXPECT_NE(no_base.reason.find("arm torch is not in the result"), std::string::npos) << no_base.reason;

  Receipt no_bw = sample_receipt();
  no_bw.machine.read_bw_gbps = 0;
  EXPECT_NE(judged(predict("bandwidth_fraction", 0, 1), no_bw).reason.find("read bandwidth was not measured"),
            std::string::npos);
}

TEST(Verdict, MetricsAreTheDocumentedEight) {
  EXPECT_EQ(prediction_metrics(), (std::vector<std::string>{"us_median", "tflops", "gbps", "bandwidth_fraction", "speedup",
                                                            "weight_gbps", "weight_bw_fraction", "plain_read_ratio"}));
}

// A decode GEMV arm's weight stream is judged from the figure derived with the run's read bandwidth; an arm that
// reports none is not measured, with the reason.
TEST(Verdict, WeightStreamMetrics) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[0];
  a.weight_bytes = int64_t(r.results[0].problem.N) * r.results[0].problem.K * 2;
  derive(a, r.results[0].problem, read_bw_gbps(r.machine.read_bw));
  ASSERT_TRUE(a.weight_bw_fraction);
  const Prediction held = judged(predict("weight_bw_fraction", *a.weight_bw_fraction * 0.9, *a.weight_bw_fraction * 1.1), r);
  EXPECT_EQ(held.verdict, "held");
  EXPECT_DOUBLE_EQ(*held.measured, *a.weight_bw_fraction);
  EXPECT_EQ(judged(predict("weight_gbps", 0, *a.weight_gbps / 2), r).verdict, "missed high");
  Receipt none = sample_receipt();
  EXPECT_NE(judged(predict("weight_gbps", 0, 1), none).reason.find("reports no weight stream"), std::string::npos);
}

// The plain read of an arm's own weight bytes, over the arm's time: judged as derived; an arm timed without one is
// not measured, with the reason.
TEST(Verdict, PlainReadRatio) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[0];
  a.weight_bytes = int64_t(r.results[0].problem.N) * r.results[0].problem.K * 2;
  for (double us : a.us) a.plain_read_us.push_back(0.6 * us);
  derive(a, r.results[0].problem, read_bw_gbps(r.machine.read_bw));
  ASSERT_TRUE(a.plain_read_ratio);
  const Prediction held = judged(predict("plain_read_ratio", 0.55, 0.65), r);
  EXPECT_EQ(held.verdict, "held");
  EXPECT_DOUBLE_EQ(*held.measured, *a.plain_read_ratio);
  EXPECT_EQ(judged(predict("plain_read_ratio", 0.7, 0.9), r).verdict, "missed low");
  const Prediction none = judged(predict("plain_read_ratio", 0, 1), sample_receipt());
  EXPECT_EQ(none.verdict, "not measured");
  EXPECT_NE(none.reason.find("no plain read"), std::string::npos) << none.reason;
}

}  // namespace
}  // namespace tilewise::receipt
