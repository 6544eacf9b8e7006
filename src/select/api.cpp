#include "select/api.hpp"

#include <fmt/format.h>

#include "device/clocks.hpp"
#include "device/cuda.hpp"
#include "device/machine.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/cublaslt/space.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/gemm.hpp"
#include "select/database_file.hpp"
#include "tilewise_version.hpp"

namespace tilewise {

namespace {

class Sm90Plan : public Plan {
 public:
  Sm90Plan(select::Choice c, const Problem& p, int sm_count)
      : Plan(std::move(c)), gemm_(p, sm90::parse_config(choice_.config), sm_count) {}
  void run(const void* A, const void* B, void* C, cudaStream_t s) override { gemm_.run(A, B, C, s); }

 private:
  sm90::Gemm gemm_;
};

// The GEMV on the problem's own weights, in either orientation (families/gemv/view.hpp): a packed format would need
// weights the caller does not pass.
class GemvPlan : public Plan {
 public:
  GemvPlan(select::Choice c, const Problem& p)
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
  CublasltPlan(select::Choice c, const cublaslt::Context& ctx, const Problem& p) : Plan(std::move(c)), m_(ctx, p) {
    if (choice_.config.empty()) {
      candidate_ = m_.heuristic(32).front();
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

select::Identity running_identity() {
  device::require_gpu();
  device::Nvml nvml(device::pci_bus_id(0));
  return select::identity_of(device::describe_machine(nvml), build::version);
}

Context::Context(ContextOptions o) {
  device::require_gpu();
  sm_count_ = device::sm_count();
  identity_ = running_identity();
  if (!o.database.empty()) {
    select::Loaded loaded = select::load_database(o.database, identity_, o.allow_foreign);
    db_ = std::make_unique<select::Database>(std::move(loaded.db));
    overridden_ = std::move(loaded.overridden);
  }
  if (!o.floor.empty()) floor_ = select::read_floor(o.floor);
}

Context::~Context() = default;

const cublaslt::Context& Context::vendor() {
  if (!vendor_) vendor_ = std::make_unique<cublaslt::Context>();  // its 64 MiB workspace only when cuBLASLt runs
  return *vendor_;
}

select::Choice Context::choose(const Problem& p) const {
  return select::choose(db_.get(), p, select::Rules{sm_count_, floor_ ? &*floor_ : nullptr, &identity_});
}

std::unique_ptr<Plan> Context::build(const Problem& p, select::Choice c) {
  try {
    if (c.family == "sm90") return std::make_unique<Sm90Plan>(c, p, sm_count_);
    if (c.family == "gemv") return std::make_unique<GemvPlan>(c, p);
    if (c.family == "cublaslt") return std::make_unique<CublasltPlan>(c, vendor(), p);
    throw Error(fmt::format("unknown family '{}'", c.family));
  } catch (const Unsupported&) {
    if (c.source == "heuristic") throw;  // cuBLASLt's own heuristic declined: no family runs p
    if (c.source == "floor") return build(p, {"cublaslt", "", "heuristic", 0});  // the floor never insists
    throw;
  } catch (const Error& e) {
    if (c.source == "heuristic") throw;
    // A measured entry that does not run is a broken database (or floor), never a silent fall back.
    throw Error(fmt::format("the {}'s {} entry {} for {} does not run here: {}", c.source, c.family, c.config,
                            describe(p), e.what()));
  }
}

Plan& Context::plan(const Problem& p) {
  const Key key{p.M, p.N, p.K, p.dtype, p.layout, p.lda, p.ldb, p.ldc};
  if (auto it = plans_.find(key); it != plans_.end()) return *it->second;
  validate(p);
  return *plans_.emplace(key, build(p, choose(p))).first->second;
}

std::unique_ptr<Plan> Context::plan_for(const Problem& p, const select::Choice& c) {
  validate(p);
  return build(p, c);
}

const select::Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream) {
  Plan& plan = ctx.plan(p);
  plan.run(A, B, C, stream);
  return plan.choice();
}

}  // namespace tilewise
