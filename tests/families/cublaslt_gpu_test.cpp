// Both vendor arms pass the harness's correctness gate on every dtype and layout, tight and padded.
#include <gtest/gtest.h>

#include "bench/arm.hpp"
#include "arm_bench.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"

namespace tilewise::bench {
namespace {

TEST(CublasltArms, CorrectOnEveryDtypeLayoutAndPadding) {
  TW_REQUIRE_GPU();
  device::Stream s;
  struct Shape {
    int64_t M, N, K;
  };
  int declined = 0;
  const Shape shapes[] = {{512, 512, 512}, {100, 200, 300}, {1, 4096, 4096}, {4, 4096, 4096}, {16, 16, 4096}};
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (Layout l : {Layout::TN, Layout::NN})
      for (int64_t pad : {0, 16})
        for (const Shape& sh : shapes) {
          if (d == DType::fp8_e4m3 && l == Layout::NN) continue;
          const Problem p = make_problem("arm", sh.M, sh.N, sh.K, d, l, pad);
          SCOPED_TRACE(describe(p));
          const testkit::ArmBench bench(p, 2, 11, s.get(), 2);
          const Workbench& wb = bench.wb;
          for (const std::string name : {"cublaslt", "cublaslt-default"}) {
            SCOPED_TRACE(name);
            auto arm = make_arm(name);
            try {
              arm->prepare(wb);
            } catch (const Unsupported& e) {
              // cuBLASLt 13.1 declines some fp8 shapes (M = 4, K = 300); 16-bit types must run everywhere.
              EXPECT_EQ(d, DType::fp8_e4m3) << e.what();
              ++declined;
              continue;
            }
            const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
            const device::OutputError e = checked_run(wb, launch);
            EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(d)))
                << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
            EXPECT_FALSE(arm->config().is_null());
            if (name == "cublaslt") EXPECT_GE(arm->candidates().size(), 1u);
          }
        }
  EXPECT_LT(declined, 16) << "cuBLASLt declined most fp8 cases";
}

}  // namespace
}  // namespace tilewise::bench
