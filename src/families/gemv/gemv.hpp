#pragma once

// The decode GEMV family's kernel: one configuration built through the JIT cache (kernels/gemv.cuh), loaded, and
// launched on operands laid out as the TN problem has them.
#include <cuda_runtime.h>

#include <atomic>
#include <memory>

#include "core/problem.hpp"
#include "families/gemv/config.hpp"
#include "jit/cache.hpp"

namespace tilewise::jit {
class LoadedKernel;
}

namespace tilewise::gemv {

// y[m][n] = sum_k x[m][k] W[n][k] for M tokens m and N weight rows n, stored at out[n * ldc + m]: C column-major with
// the tokens as rows (the seeds' decode orientation), or by a kernel built for y rows at out[m * ldc + n] (nn.Linear's
// y[T, F] row-major; families/gemv/view.hpp).
struct Args {
  const void* x = nullptr;  // M x K activations: rows ldx elements apart (TN), or columns of M (NN)
  int64_t ldx = 0;
  // N rows of packed weights, w_row_bytes apart (16-byte aligned); for engine=mma-order the same weights in the sm90
  // kernel's tensor-core order (sm90::to_kernel_order), which nothing here can tell from rows: the caller's to give.
  const void* w = nullptr;
  int64_t w_row_bytes = 0;
  const void* scales = nullptr;  // the format's scales (quantize.hpp); null for 16-bit weights and an fp8 problem's B
  void* out = nullptr;
  int64_t ldc = 0;  // elements between C's columns (y rows: between tokens)
};

// The one description of what to compile for a configuration (the JIT cache derives its key from it); `y_rows` stores
// nn.Linear's y row-major instead of C column-major.
jit::KernelBuild kernel_build(const Config& c, bool y_rows = false);

// Why `a` cannot be launched with `c` on `p` (empty when it can): a missing operand or scale array, weight rows that
// are not whole 16-byte-aligned rows of K, x not aligned for the engine's vector loads (16 bytes; the FMA engine
// reads fp8 x 8 bytes at a time), group scales the bulk engine cannot copy (not 16-byte aligned), or an output not
// aligned to its elements. Shape and
// stride rules are require_feasible's.
std::string args_error(const Config& c, const Problem& p, const Args& a);

class Kernel {
 public:
  // Compiles (or takes from the cache) and loads the kernel on the current device. Throws Error.
  explicit Kernel(const Config& c, bool y_rows = false);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const Config& config() const { return config_; }
  const jit::ResourceUsage& usage() const { return usage_; }
  // CTAs launched for the problem's N output columns: one a CTA tile, or at most as many as fit the GPU at once for a
  // persistent grid.
  int grid(const Problem& p) const;
  // Throws Unsupported when the configuration cannot run the problem (require_feasible), Error when the arguments
  // cannot be launched (args_error).
  void launch(const Problem& p, const Args& a, cudaStream_t stream) const;

 private:
  Config config_;
  bool y_rows_ = false;
  jit::ResourceUsage usage_;
  std::shared_ptr<const jit::LoadedKernel> kernel_;  // shared with every kernel of the same instantiation
  int resident_ctas_ = 0;  // CTAs that fit the GPU at once: a persistent grid's size (the bulk engine's)
  // The mma-order engine's shared memory grows with K (x staged whole): the last K asked and the CTAs that fit with
  // it, as K << 20 | CTAs.
  mutable std::atomic<int64_t> resident_at_k_{-1};
  int resident_ctas(int64_t K) const;
};

}  // namespace tilewise::gemv
