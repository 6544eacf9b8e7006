#pragma once
// One tuning round's candidates made runnable on one problem's operands, per family: every candidate is built before
// any is checked or timed, sm90's and gemv's kernels compiled in parallel by the JIT (cuBLASLt's "build" is its
// AlgoCheck). A candidate that does not build carries the reason instead of a launch; the round goes on without it.
#include <string>
#include <vector>

#include "device/operands.hpp"
#include "device/timing.hpp"
#include "families/cublaslt/matmul.hpp"
#include "tune/config.hpp"

namespace tilewise::bench {

struct Runnable {
  bool built = false;
  std::string error;     // why it has no launch
  device::Launch launch;  // owns what it launches; reads operand set `set` of the operands given
};

std::vector<Runnable> sm90_runnables(const Problem& p, const device::Operands& ops,
                                     const std::vector<tune::Config>& candidates, int sm_count);
// The GEMV on the problem's own B (families/gemv/view.hpp), as tilewise::gemm runs it.
std::vector<Runnable> gemv_runnables(const Problem& p, const device::Operands& ops,
                                     const std::vector<tune::Config>& candidates);
std::vector<Runnable> cublaslt_runnables(const cublaslt::Context& ctx, const Problem& p, const device::Operands& ops,
                                         const std::vector<tune::Config>& candidates);

}  // namespace tilewise::bench
