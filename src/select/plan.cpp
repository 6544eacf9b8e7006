#include "select/plan.hpp"

#include <fmt/format.h>

#include "families/cublaslt/matmul.hpp"
#include "families/cublaslt/space.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/gemm.hpp"

namespace tilewise::select {

namespace {

class Sm90Plan : public Plan {
 public:
  Sm90Plan(Choice c, const Problem& p, int sm_count)
      : Plan(std::move(c)), gemm_(p, sm90::parse_config(choice_.config), sm_count) {}
  void run(const void* A, const void* B, void* C, cudaStream_t s) override { gemm_.run(A, B, C, s); }

 private:
  sm90::Gemm gemm_;
};

// The GEMV on the problem's own weights, in either orientation (families/gemv/view.hpp): a packed format would need
// weights the caller does not pass.
class GemvPlan : public Plan {
 public:
  GemvPlan(Choice c, const Problem& p)
      : Plan(std::move(c)),
        view_(gemv::require_view(p)),
        kernel_(gemv::parse_config(choice_.config), view_.tokens_as_n) {
    if (!gemv::is_native(kernel_.config().weights, p.dtype))
      throw Error(fmt::format("gemv {} computes with packed {} weights; tilewise::gemm passes the weights as the problem "
                              "stores them",
                              choice_.config, gemv::to_string(kernel_.config().weights)));
    gemv::require_feasible(kernel_.config(), view_.problem);
  }
  void run(const void* A, const void* B, void* C, cudaStream_t s) override {
    kernel_.launch(view_.problem, gemv::view_args(view_, view_.problem, A, B, C), s);
  }

 private:
  gemv::View view_;
  gemv::Kernel kernel_;
};

// An empty configuration is cuBLASLt's own heuristic's first candidate (what cublaslt-default and torch.mm run); the
// choice then records the configuration it named.
class CublasltPlan : public Plan {
 public:
  CublasltPlan(Choice c, const cublaslt::Context& ctx, const Problem& p) : Plan(std::move(c)), m_(ctx, p) {
    if (choice_.config.empty()) {
      candidate_ = m_.heuristic(32).front();  // throws Unsupported when it offers nothing
      choice_.config = cublaslt::to_string(candidate_.config);
    } else {
      candidate_ = cublaslt::resolve(m_, cublaslt::parse_config(choice_.config), cublaslt::offered(m_));
    }
  }
  void run(const void* A, const void* B, void* C, cudaStream_t s) override { m_.run(candidate_, A, B, C, s); }

 private:
  cublaslt::Matmul m_;
  cublaslt::Candidate candidate_{};
};

}  // namespace

std::unique_ptr<Plan> make_plan(const Problem& p, const Choice& c, const VendorContext& vendor, int sm_count) {
  if (c.family == "sm90") return std::make_unique<Sm90Plan>(c, p, sm_count);
  if (c.family == "gemv") return std::make_unique<GemvPlan>(c, p);
  if (c.family == "cublaslt") return std::make_unique<CublasltPlan>(c, vendor(), p);
  throw Error(fmt::format("unknown family '{}' (known: sm90, gemv, cublaslt)", c.family));
}

}  // namespace tilewise::select
