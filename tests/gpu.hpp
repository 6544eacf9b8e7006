#pragma once
// GPU tests are labelled `gpu` in CTest so CI skips them; run alone without a GPU they skip instead of failing.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace tilewise::testkit {
inline bool has_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
}  // namespace tilewise::testkit

#define TW_REQUIRE_GPU() \
  if (!::tilewise::testkit::has_gpu()) GTEST_SKIP() << "needs a CUDA GPU"
