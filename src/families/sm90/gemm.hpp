#pragma once
// One problem on the sm90 kernel with one configuration: the instantiation built by the JIT (disk cache), the
// tensor map of each operand (re-encoded when its buffer changes), and the launch on a persistent grid.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "core/problem.hpp"
#include "device/cuda.hpp"
#include "device/scratch.hpp"
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
  // when the build fails. A stream-K configuration takes its partials and flags from `scratch` (the stream's, shared
  // with the other plans run on that stream) or, without one, holds its own.
  Gemm(const Problem& p, const Config& c, int sm_count, device::StreamScratch* scratch = nullptr);
  // With packed weights (Config::weights), the operand on wgmma's 64-row side (B, or A when swapped) is the packed q
  // in the kernel's order (families/sm90/packed.hpp) and `packed_scales` its scales.
  void run(const void* A, const void* B, void* C, cudaStream_t stream, const void* packed_scales = nullptr);

  const jit::ResourceUsage& usage() const { return usage_; }
  int grid() const { return grid_; }

 private:
  void bind(const void* A, const void* B, void* C, const void* packed_scales);

  Problem p_;
  Config c_;
  jit::ResourceUsage usage_;
  std::shared_ptr<const jit::LoadedKernel> kernel_;  // shared with every Gemm of the same instantiation
  int grid_ = 0;
  int kernel_m_ = 0, kernel_n_ = 0;  // M and N as the kernel sees them (kernel_view: swapped with the operands)
  WorkPlan plan_;
  FastDivisor k_tiles_divisor_;
  std::unique_ptr<device::StreamScratch> own_scratch_;  // stream-K without a shared scratch
  device::StreamScratch::Slots scratch_;                // stream-K only
  // The kernel's three maps and the buffers they were encoded for: only the spec's base changes between runs, so a
  // caller whose buffers move (a fresh output tensor each call) re-encodes that one map and keeps nothing more.
  struct OperandMap {
    const void* base = nullptr;
    TensorMap map;
    void bind(const TensorMapSpec& spec);
  };
  OperandMap a_map_, b_map_, c_map_;
  const void *bound_A_ = nullptr, *bound_B_ = nullptr, *bound_C_ = nullptr;
  const void* packed_scales_ = nullptr;
};

}  // namespace tilewise::sm90
