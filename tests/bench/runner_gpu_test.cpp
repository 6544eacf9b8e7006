// The runner on the GPU: an arm whose family does not take a problem is recorded as declined while the problem's
// other arms are measured, and only a problem every arm declines is skipped; each result names its suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "bench/runner.hpp"
#include "gpu.hpp"

namespace tilewise::bench {
namespace {

Options small_run(std::vector<std::string> arms, std::string baseline) {
  Options o;
  o.suites = {testkit::source_dir() + "/suites/llm24.txt"};
  o.only = {"sqS"};  // M = 512: outside the gemv family's M = 1..16
  o.arms = std::move(arms);
  o.baseline = std::move(baseline);
  o.repeats = 2;
  o.warmup_s = 0.2;
  o.rewarm_ms = 5;
  o.output = (std::filesystem::temp_directory_path() / "tilewise-runner-gpu-test.json").string();
  return o;
}

TEST(Runner, AnArmWhoseFamilyDeclinesIsRecordedAndTheOthersAreMeasured) {
  TW_REQUIRE_GPU();
  const receipt::Receipt r = run(small_run({"cublaslt-default", "gemv:bf16"}, "cublaslt-default"), nullptr);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].suite, "llm24");
  EXPECT_TRUE(r.skipped.empty());
  const auto& arms = r.results[0].arms;
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].arm, "cublaslt-default");
  EXPECT_TRUE(arms[0].declined.empty());
  EXPECT_TRUE(arms[0].correct);
  EXPECT_TRUE(arms[0].us_median);
  EXPECT_EQ(arms[1].arm, "gemv:bf16");
  EXPECT_NE(arms[1].declined.find("1..16 tokens"), std::string::npos) << arms[1].declined;
  EXPECT_FALSE(arms[1].us_median);
  EXPECT_TRUE(r.results[0].comparisons.empty());
  // Nothing about the declined arm makes the receipt invalid (the short warm-up does, and only that).
  for (const std::string& p : r.problems) EXPECT_NE(p.find("warm-up"), std::string::npos) << p;
}

TEST(Runner, AProblemEveryArmDeclinesIsSkippedWithEachArmsReason) {
  TW_REQUIRE_GPU();
  const receipt::Receipt r = run(small_run({"gemv:bf16", "gemv:int4"}, "gemv:bf16"), nullptr);
  EXPECT_TRUE(r.results.empty());
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].reason.find("gemv:bf16: "), std::string::npos) << r.skipped[0].reason;
  EXPECT_NE(r.skipped[0].reason.find("; gemv:int4: "), std::string::npos) << r.skipped[0].reason;
}

TEST(Runner, AWeightStreamingArmIsTimedBesideAPlainReadOfItsBytes) {
  TW_REQUIRE_GPU();
  Options o = small_run({"cublaslt-default", "gemv:int8"}, "cublaslt-default");
  o.suites = {testkit::source_dir() + "/suites/decode.txt"};
  o.only = {"dec_m1_4096"};
  o.cold = true;
  const receipt::Receipt r = run(o, nullptr);
  ASSERT_EQ(r.results.size(), 1u);
  const auto& arms = r.results[0].arms;
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_TRUE(arms[0].plain_read_us.empty());  // cuBLASLt reports no weight stream
  const receipt::ArmResult& gemv = arms[1];
  ASSERT_TRUE(gemv.correct) << gemv.error;
  EXPECT_GT(gemv.weight_bytes, 0);
  ASSERT_EQ(gemv.plain_read_us.size(), size_t(o.repeats));
  ASSERT_TRUE(gemv.plain_read_ratio && gemv.us_median);
  EXPECT_DOUBLE_EQ(*gemv.plain_read_ratio, *gemv.plain_read_us_median / *gemv.us_median);
  for (const std::string& p : r.problems) EXPECT_NE(p.find("warm-up"), std::string::npos) << p;
}

}  // namespace
}  // namespace tilewise::bench
