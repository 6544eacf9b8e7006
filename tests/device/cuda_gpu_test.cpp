// A CUDA call that fails throws once: the runtime's last error is left clear, so the next launch's check
// (TW_CUDA(cudaGetLastError())) does not blame that launch for it.
#include <gtest/gtest.h>

#include "device/cuda.hpp"
#include "device/launchers.hpp"
#include "gpu.hpp"

namespace tilewise {
namespace {

TEST(CudaErrors, AFailedCallIsReportedOnceAndTheNextLaunchRuns) {
  TW_REQUIRE_GPU();
  EXPECT_THROW(TW_CUDA(cudaSetDevice(1 << 20)), Error);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_THROW(device::Buffer(size_t(1) << 52), Error);  // 4 PiB
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const device::Buffer b(1024);
  EXPECT_NO_THROW(device::launch_fill(DType::bf16, b.get(), 512, 7, nullptr));
  TW_CUDA(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace tilewise
