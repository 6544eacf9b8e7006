// jit::load: one instantiation is loaded once for all its holders and unloaded with the last.
#include <gtest/gtest.h>

#include "families/sm90/config.hpp"
#include "families/sm90/gemm.hpp"
#include "gpu.hpp"
#include "jit/kernel.hpp"

namespace tilewise {
namespace {

jit::KernelBuild some_build() {
  const Problem p = make_problem("load", 256, 256, 256, DType::bf16, Layout::TN);
  sm90::Config c;
  c.block_m = 128, c.block_n = 128, c.stages = 4, c.consumers = 2;
  return sm90::kernel_build(c, p);
}

TEST(JitLoad, OneInstantiationIsLoadedOnceForAllItsHolders) {
  TW_REQUIRE_GPU();
  const int before = jit::loaded_count();
  {
    const jit::Loaded first = jit::load(some_build());
    const jit::Loaded second = jit::load(some_build());
    EXPECT_EQ(first.kernel.get(), second.kernel.get());
    EXPECT_EQ(first.usage.registers, second.usage.registers);
    EXPECT_GT(first.usage.registers, 0);
    EXPECT_EQ(jit::loaded_count(), before + 1);
  }
  EXPECT_EQ(jit::loaded_count(), before) << "the kernel stayed loaded after its last holder";
}

// A kernel asked for more shared memory than the SM has (what an infeasible configuration launched anyway asks):
// the error is thrown once, and the runtime's last error is left clear, so the next launch is not blamed for it.
TEST(JitLoad, AFailedAttributeCallIsReportedOnce) {
  TW_REQUIRE_GPU();
  const jit::Loaded loaded = jit::load(some_build());
  EXPECT_THROW(loaded.kernel->set_max_dynamic_shared(1 << 30), Error);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace tilewise
