// The vendor arms. A vendor figure far under what the machine does elsewhere is a harness bug until shown
// otherwise (seed 000), so the `cublaslt` arm gets every chance: one workspace allocated once and shared, every
// candidate the heuristic offers checked for correctness and timed (bench/choose.hpp), and the fastest kept.
#include <fmt/format.h>
#include <fmt/ranges.h>


#include "bench/arm.hpp"
#include "bench/choose.hpp"
#include "bench/gemv_arms.hpp"
#include "bench/selected_arm.hpp"
#include "bench/sm90_arm.hpp"
#include "families/cublaslt/matmul.hpp"

namespace tilewise::bench {

namespace {

cublaslt::Context& shared_context() {
  static cublaslt::Context ctx;
  return ctx;
}

class VendorArm : public Arm {
 public:
  VendorArm(std::string name, bool search) : name_(std::move(name)), search_(search) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    operands_ = &wb.operands;
    matmul_ = std::make_unique<cublaslt::Matmul>(shared_context(), wb.problem);
    std::vector<cublaslt::Candidate> offered = matmul_->heuristic(32);
    if (!search_) offered.resize(1);
    std::vector<nlohmann::json> configs;
    for (const cublaslt::Candidate& c : offered) configs.push_back(c.config);
    const device::Launch launch = [this](int set, cudaStream_t s) { this->launch(set, s); };
    const Choice choice = choose_fastest(wb, configs, [&](size_t i) { chosen_ = offered[i]; }, launch, search_);
    tried_ = choice.tried;
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& s = operands_->set(set);
    matmul_->run(chosen_, s.a.get(), s.b.get(), s.c.get(), stream);
  }

  nlohmann::json config() const override { return chosen_.config; }
  std::string config_text() const override { return cublaslt::describe(chosen_.config); }
  std::vector<receipt::Candidate> candidates() const override { return search_ ? tried_ : std::vector<receipt::Candidate>{}; }

 private:
  std::string name_;
  bool search_;
  std::unique_ptr<cublaslt::Matmul> matmul_;
  cublaslt::Candidate chosen_{};
  std::vector<receipt::Candidate> tried_;
  const device::Operands* operands_ = nullptr;
};

}  // namespace

std::vector<std::string> known_arms() { return {"cublaslt", "cublaslt-default", "sm90", "selected"}; }

std::unique_ptr<Arm> make_arm(const std::string& name) {
  if (name == "cublaslt") return std::make_unique<VendorArm>(name, true);
  if (name == "cublaslt-default") return std::make_unique<VendorArm>(name, false);
  if (name == "sm90" || name.starts_with("sm90:")) return make_sm90_arm(name);
  if (auto arm = make_gemv_arm(name)) return arm;
  if (auto arm = make_selected_arm(name)) return arm;
  throw Error(fmt::format("unknown arm '{}' (known: cublaslt, cublaslt-default, sm90, sm90:<config>, sm90:sweep, selected, "
                          "selected:<database>, {})", name,
                          fmt::join(gemv_arm_names(), ", ")));
}

}  // namespace tilewise::bench
