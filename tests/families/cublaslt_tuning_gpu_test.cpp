// cuBLASLt's space on the GPU: capabilities for every type, the heuristic's candidates read back exactly from their
// canonical strings (so a database entry runs what was tuned), and a warm start the space holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "families/cublaslt/space.hpp"
#include "families/cublaslt/tuning.hpp"
#include "gpu.hpp"
#include "tune/space.hpp"

namespace tilewise::tune {
namespace {

std::vector<Problem> problems() {
  return {make_problem("sq", 2048, 2048, 2048, DType::bf16, Layout::TN),
          make_problem("nn", 1024, 4096, 1024, DType::fp16, Layout::NN),
          make_problem("f8", 4096, 4096, 4096, DType::fp8_e4m3, Layout::TN),
          make_problem("dec", 16, 8192, 4096, DType::bf16, Layout::TN)};
}

TEST(CublasltSpaceGpu, HeuristicCandidatesReadBackFromTheirCanonicalStrings) {
  TW_REQUIRE_GPU();
  const cublaslt::Context ctx;
  for (const Problem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const cublaslt::Matmul m(ctx, p);
    int same_bytes = 0, offered = 0;
    for (const cublaslt::Candidate& c : m.heuristic(32)) {
      const cublaslt::Config again = cublaslt::parse_config(cublaslt::to_string(c.config));
      const cublaslt::Candidate rebuilt = m.configured(again);
      EXPECT_EQ(rebuilt.config, c.config) << cublaslt::to_string(c.config);
      // Whether the opaque descriptor is the heuristic's byte for byte: if not, it may hold something the attributes
      // do not name, and a tuned cuBLASLt entry could run a different kernel than the one timed as cublaslt-default.
      same_bytes += std::memcmp(rebuilt.algo.data, c.algo.data, sizeof c.algo.data) == 0;
      ++offered;
    }
    std::printf("%s: %d of %d heuristic candidates rebuilt byte for byte\n", describe(p).c_str(), same_bytes, offered);
  }
}

TEST(CublasltSpaceGpu, CapabilitiesCoverTheWarmStartsAlgorithm) {
  TW_REQUIRE_GPU();
  const cublaslt::Context ctx;
  for (const Problem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const cublaslt::Matmul m(ctx, p);
    const std::vector<cublaslt::AlgoCaps> caps = cublaslt::capabilities(m);
    ASSERT_FALSE(caps.empty());
    const int32_t warm = m.heuristic(32).front().config.algo_id;
    EXPECT_TRUE(std::any_of(caps.begin(), caps.end(), [&](const cublaslt::AlgoCaps& a) { return a.algo_id == warm; }));
  }
}

TEST(CublasltSpaceGpu, TheTunableHoldsAFeasibleWarmStartAndMoreThanOneKernel) {
  TW_REQUIRE_GPU();
  const cublaslt::Context ctx;
  for (const Problem& p : problems()) {
    SCOPED_TRACE(describe(p));
    const Tunable t = cublaslt::tunable(ctx, p);
    EXPECT_NO_THROW(check_space(t.space, t.warm_start));
    EXPECT_FALSE(t.space.infeasible(t.warm_start));
    const Candidates kernel = candidates(t.space.groups[0], t.warm_start, t.space.infeasible, t.space.fit);
    EXPECT_GT(kernel.configs.size(), 1u);
    for (const Group& g : t.space.groups)
      std::printf("%s %s: %zu alternatives\n", describe(p).c_str(), g.name.c_str(), g.alternatives.size());
    std::printf("  kernel round: %zu legal of %d enumerated (%d refitted)\n", kernel.configs.size(), kernel.enumerated,
                kernel.refitted);
  }
}

}  // namespace
}  // namespace tilewise::tune
