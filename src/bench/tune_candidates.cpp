#include "bench/tune_candidates.hpp"

#include <memory>
#include <type_traits>

#include "families/cublaslt/space.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "jit/cache.hpp"
#include "tune/cublaslt_space.hpp"
#include "tune/gemv_space.hpp"
#include "tune/sm90_space.hpp"

namespace tilewise::bench {

namespace {

// A family whose kernels the JIT compiles: every candidate converted and checked, the feasible ones' kernels compiled
// all at once on every core, then each loaded as a launch. `infeasible` gives why a configuration cannot run the
// problem (empty when it can); `load` throws Error when the kernel does not load.
template <typename Convert, typename Infeasible, typename Build, typename Load>
std::vector<Runnable> jit_runnables(const std::vector<tune::Config>& candidates, Convert convert, Infeasible infeasible,
                                    Build build, Load load) {
  using FamilyConfig = std::invoke_result_t<Convert, const tune::Config&>;
  std::vector<Runnable> out(candidates.size());
  std::vector<FamilyConfig> configs(candidates.size());
  std::vector<jit::KernelBuild> builds;
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      configs[i] = convert(candidates[i]);
      out[i].error = infeasible(configs[i]);
      if (out[i].error.empty()) builds.push_back(build(configs[i]));
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  // build_all rethrows only its first failure after finishing the rest, so the loads below find every success in the
  // cache and meet each failure again with its own message.
  try {
    jit::build_all(builds);
  } catch (const Error&) {
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!out[i].error.empty()) continue;
    try {
      out[i].launch = load(configs[i]);
      out[i].built = true;
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  return out;
}

}  // namespace

std::vector<Runnable> sm90_runnables(const Problem& p, const device::Operands& ops,
                                     const std::vector<tune::Config>& candidates, int sm_count) {
  return jit_runnables(
      candidates, tune::to_sm90, [&p](const sm90::Config& c) { return sm90::infeasible(c, p).value_or(""); },
      [&p](const sm90::Config& c) { return sm90::kernel_build(c, p); },
      [&p, &ops, sm_count](const sm90::Config& c) -> device::Launch {
        auto gemm = std::make_shared<sm90::Gemm>(p, c, sm_count);
        return [gemm, &ops](int set, cudaStream_t s) {
          const device::OperandSet& o = ops.set(set);
          gemm->run(o.a.get(), o.b.get(), o.c.get(), s);
        };
      });
}

std::vector<Runnable> gemv_runnables(const Problem& p, const device::Operands& ops,
                                     const std::vector<tune::Config>& candidates) {
  const gemv::View v = gemv::require_view(p);  // either orientation, as tilewise::gemm runs it
  return jit_runnables(
      candidates, tune::to_gemv, [v](const gemv::Config& c) { return gemv::infeasible(c, v.problem); },
      [v](const gemv::Config& c) { return gemv::kernel_build(c, v.tokens_as_n); },
      [v, &ops](const gemv::Config& c) -> device::Launch {
        auto kernel = std::make_shared<const gemv::Kernel>(c, v.tokens_as_n);
        return [kernel, v, &ops](int set, cudaStream_t s) {
          const device::OperandSet& o = ops.set(set);
          kernel->launch(v.problem, gemv::view_args(v, v.problem, o.a.get(), o.b.get(), o.c.get()), s);
        };
      });
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
