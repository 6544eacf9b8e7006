#pragma once
// GPU tests are labelled `gpu` in CTest so CI skips them; run alone without a GPU they skip instead of failing.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace tilewise::testkit {
inline bool has_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
// The source tree the tests read suites and receipts from: $TILEWISE_SOURCE_DIR where they run on a copy of it (the
// GPU machine), else where they were built. (The JIT finds kernels by $TILEWISE_KERNELS_DIR, src/jit/nvrtc.cpp.)
inline std::string source_dir() {
  const char* env = std::getenv("TILEWISE_SOURCE_DIR");
  return env && *env ? env : TILEWISE_SOURCE_DIR;
}
// `count` elements of T from device memory (synchronous).
template <typename T>
std::vector<T> download(const void* p, size_t count) {
  std::vector<T> out(count);
  if (count && cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
    ADD_FAILURE() << "cudaMemcpy of " << count * sizeof(T) << " bytes from the device failed";
  return out;
}
}  // namespace tilewise::testkit

#define TW_REQUIRE_GPU() \
  if (!::tilewise::testkit::has_gpu()) GTEST_SKIP() << "needs a CUDA GPU"
