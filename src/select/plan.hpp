#pragma once
// One problem's kernel, built and ready to launch on any operands of that problem: what a selection's Choice names,
// made runnable by its family (families/family.hpp). The library API keeps one per problem signature; the first-use
// tuner builds one per candidate.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "core/problem.hpp"
#include "families/family.hpp"
#include "select/choice.hpp"

namespace tilewise {

class Plan {
 public:
  Plan(select::Choice c, std::unique_ptr<families::Kernel> kernel) : choice_(std::move(c)), kernel_(std::move(kernel)) {
    choice_.config = kernel_->config();  // for cuBLASLt from the heuristic, the configuration its heuristic named
  }
  void run(const void* A, const void* B, void* C, cudaStream_t stream) { kernel_->run(A, B, C, stream); }
  const select::Choice& choice() const { return choice_; }
  // How it came to be chosen (a first-use tuning that timed it), the kernel unchanged.
  void chosen_by(std::string source, double us) {
    choice_.source = std::move(source);
    choice_.us = us;
  }

 private:
  select::Choice choice_;
  std::unique_ptr<families::Kernel> kernel_;
};

namespace select {

// Builds `c` for `p` through its family, with the stream's resources (`r`: its cuBLASLt handle and workspace, asked
// for only when a cuBLASLt plan is built, and its stream-K scratch). Throws Unsupported when the family does not
// take p or the configuration is infeasible for it, Error when the family is unknown, the configuration does not parse, or it can never run here
// (a GEMV's packed weights, which tilewise::gemm cannot pass).
std::unique_ptr<Plan> make_plan(const Problem& p, const Choice& c, const families::Resources& r);

}  // namespace select
}  // namespace tilewise
