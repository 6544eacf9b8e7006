#include "bench/tune_candidates.hpp"

#include <memory>

#include "families/cublaslt/space.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "jit/cache.hpp"
#include "tune/cublaslt_space.hpp"
#include "tune/sm90_space.hpp"

namespace tilewise::bench {

std::vector<Runnable> sm90_runnables(const Problem& p, const device::Operands& ops,
                                     const std::vector<tune::Config>& candidates, int sm_count) {
  std::vector<Runnable> out(candidates.size());
  std::vector<sm90::Config> configs(candidates.size());
  std::vector<jit::KernelBuild> builds;
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      configs[i] = tune::to_sm90(candidates[i]);
      if (const auto why = sm90::infeasible(configs[i], p)) out[i].error = *why;
      else builds.push_back(sm90::kernel_build(configs[i], p));
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  // All compiles at once, on every core. build_all rethrows only its first failure after finishing the rest, so the
  // loads below find every success in the cache and meet each failure again with its own message.
  try {
    jit::build_all(builds);
  } catch (const Error&) {
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!out[i].error.empty()) continue;
    try {
      auto gemm = std::make_shared<sm90::Gemm>(p, configs[i], sm_count);
      out[i].built = true;
      out[i].launch = [gemm, &ops](int set, cudaStream_t s) {
        const device::OperandSet& o = ops.set(set);
        gemm->run(o.a.get(), o.b.get(), o.c.get(), s);
      };
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  return out;
}

std::vector<Runnable> cublaslt_runnables(const cublaslt::Context& ctx, const Problem& p, const device::Operands& ops,
                                         const std::vector<tune::Config>& candidates) {
  auto m = std::make_shared<const cublaslt::Matmul>(ctx, p);
  const std::vector<cublaslt::Candidate> offered = cublaslt::offered(*m);
  std::vector<Runnable> out(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      const cublaslt::Candidate c = cublaslt::resolve(*m, tune::to_cublaslt(candidates[i]), offered);
      out[i].built = true;
      out[i].launch = [m, c, &ops](int set, cudaStream_t s) {
        const device::OperandSet& o = ops.set(set);
        m->run(c, o.a.get(), o.b.get(), o.c.get(), s);
      };
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  return out;
}

}  // namespace tilewise::bench
