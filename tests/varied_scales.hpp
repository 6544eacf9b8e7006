#pragma once
// Weights whose rows and groups of 32 along K differ in scale (row n times 2^((5n mod 9) - 4), its group g times
// 1 + (n + g) mod 5: up to 2^8 apart), so that a packed format's scale applied to the wrong row or group moves the
// output far past a test's bound. Uniform weights give every row and group about the same scale, which hid that.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/numeric.hpp"
#include "core/problem.hpp"
#include "device/cuda.hpp"
#include "families/gemv/quantize.hpp"

namespace tilewise::testkit {

// w: `rows` rows of K bf16 or fp16 values, `ld` apart, in device memory; rescaled in place (synchronous).
inline void vary_scales(void* w, DType d, int64_t rows, int64_t K, int64_t ld, cudaStream_t stream) {
  TW_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint16_t> host(size_t(rows * ld));
  TW_CUDA(cudaMemcpy(host.data(), w, host.size() * 2, cudaMemcpyDeviceToHost));
  for (int64_t n = 0; n < rows; ++n)
    for (int64_t k = 0; k < K; ++k) {
      uint16_t& bits = host[size_t(n * ld + k)];
      const double scale = std::ldexp(1.0, int(5 * n % 9) - 4) * double(1 + (n + k / 32) % 5);
      const float v = float((d == DType::bf16 ? bf16_to_double(bits) : fp16_to_double(bits)) * scale);
      bits = d == DType::bf16 ? gemv::float_to_bf16_bits(v) : gemv::float_to_fp16_bits(v);
    }
  TW_CUDA(cudaMemcpy(w, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
}

}  // namespace tilewise::testkit
