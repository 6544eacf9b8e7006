// The arm sm90:sweep: on shapes where the rule weighs whole tiles, split-K and stream-K, every rule candidate is
// checked and timed and recorded, the fastest correct one runs, and it passes the harness's correctness gate.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/arm.hpp"
#include "families/sm90/heuristic.hpp"
#include "arm_bench.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"

namespace tilewise::bench {
namespace {

TEST(Sm90SweepArm, TimesEveryRuleCandidateAndRunsTheFastest) {
  TW_REQUIRE_GPU();
  device::Stream s;
  // A decode-like shape (narrow width, split-K), a small square and one with waves to stream.
  for (const Problem& p : {make_problem("sn_32_dec", 16, 32, 8192, DType::bf16, Layout::TN),
                           make_problem("sqS", 512, 512, 512, DType::bf16, Layout::TN),
                           make_problem("sq2560", 2560, 2560, 2560, DType::fp16, Layout::NN),
                           // nn.Linear's 142 tokens: the swapped rungs (widths 144 and 72) beside the ladder
                           make_problem("lin142", 2048, 142, 4096, DType::bf16, Layout::TN)}) {
    SCOPED_TRACE(describe(p));
    const testkit::ArmBench bench(p, 1, 11, s.get(), 2);
    const Workbench& wb = bench.wb;
    auto arm = make_arm("sm90:sweep");
    arm->prepare(wb);
    const std::vector<receipt::Candidate> tried = arm->candidates();
    sm90::Limits limits;
    TW_CUDA(cudaDeviceGetAttribute(&limits.sm_count, cudaDevAttrMultiProcessorCount, 0));
    ASSERT_EQ(tried.size(), sm90::sweep_candidates(p, limits).size());
    std::optional<double> fastest;
    for (const receipt::Candidate& c : tried) {
      EXPECT_TRUE(c.correct) << c.config.dump() << " " << c.error;
      ASSERT_TRUE(c.us) << c.config.dump();
      fastest = std::min(fastest.value_or(*c.us), *c.us);
    }
    const nlohmann::json config = arm->config();
    const auto chosen = std::find_if(tried.begin(), tried.end(),
                                     [&](const receipt::Candidate& c) { return c.config["config"] == config["config"]; });
    ASSERT_NE(chosen, tried.end());
    EXPECT_EQ(*chosen->us, *fastest);
    const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
    const device::OutputError e = checked_run(wb, launch);
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)));
  }
}

}  // namespace
}  // namespace tilewise::bench
