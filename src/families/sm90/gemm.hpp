#pragma once
// One problem on the sm90 kernel with one configuration: the instantiation built by the JIT (disk cache), the
// tensor maps of each operand buffer (cached by key), and the launch on a persistent grid.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "core/problem.hpp"
#include "device/cuda.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/stream_k.hpp"
#include "families/sm90/tensor_map.hpp"
#include "jit/cache.hpp"
#include "jit/kernel.hpp"

namespace tilewise::sm90 {

// The kernel instantiation a configuration names for a problem's input type and A layout.
jit::KernelBuild kernel_build(const Config& c, const Problem& p);

class Gemm {
 public:
  // Throws Unsupported when the problem or configuration is outside the feasible set (with the reason), Error
  // when the build fails.
  Gemm(const Problem& p, const Config& c, int sm_count);
  void run(const void* A, const void* B, void* C, cudaStream_t stream);

  const jit::ResourceUsage& usage() const { return usage_; }
  int grid() const { return grid_; }

 private:
  const TensorMap& map(const TensorMapSpec& spec);
  void bind(const void* A, const void* B, void* C);

  Problem p_;
  Config c_;
  jit::ResourceUsage usage_;
  std::unique_ptr<jit::LoadedKernel> kernel_;
  int grid_ = 0;
  int kernel_m_ = 0, kernel_n_ = 0;  // M and N as the kernel sees them (kernel_view: swapped with the operands)
  WorkPlan plan_;
  FastDivisor k_tiles_divisor_;
  device::Buffer partials_, flags_;  // stream-K only
  std::unordered_map<std::string, TensorMap> maps_;  // node-based: the pointers in bound_ stay valid
  struct Bound {
    const void *A = nullptr, *B = nullptr, *C = nullptr;
    const TensorMap *a = nullptr, *b = nullptr, *c = nullptr;
  } bound_;
};

}  // namespace tilewise::sm90
