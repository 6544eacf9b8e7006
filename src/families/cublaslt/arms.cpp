// The vendor arms. A vendor figure far under what the machine does elsewhere is a harness bug until shown
// otherwise (seed 000), so the `cublaslt` arm gets every chance: one workspace allocated once and shared, every
// candidate the heuristic offers checked for correctness and timed (families/choose.hpp), and the fastest kept.
#include "families/choose.hpp"
#include "families/cublaslt/arms.hpp"
#include "families/cublaslt/family.hpp"
#include "families/cublaslt/matmul.hpp"

namespace tilewise::cublaslt {

using families::Arm;
using families::Workbench;

namespace {

Context& shared_context() {
  static Context ctx;
  return ctx;
}

class VendorArm : public Arm {
 public:
  VendorArm(std::string name, bool search) : name_(std::move(name)), search_(search) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    operands_ = &wb.operands;
    matmul_ = std::make_unique<Matmul>(shared_context(), wb.problem);
    std::vector<Candidate> offered = matmul_->heuristic(32);
    if (!search_) offered.resize(1);
    std::vector<nlohmann::json> configs;
    for (const Candidate& c : offered) configs.push_back(c.config);
    const device::Launch launch = [this](int set, cudaStream_t s) { this->launch(set, s); };
    const families::Chosen choice = families::choose_fastest(wb, configs, [&](size_t i) { chosen_ = offered[i]; }, launch, search_);
    tried_ = choice.tried;
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& s = operands_->set(set);
    matmul_->run(chosen_, s.a.get(), s.b.get(), s.c.get(), stream);
  }

  nlohmann::json config() const override { return chosen_.config; }
  std::string config_text() const override { return describe(chosen_.config); }
  std::vector<receipt::Candidate> candidates() const override { return search_ ? tried_ : std::vector<receipt::Candidate>{}; }

 private:
  std::string name_;
  bool search_;
  std::unique_ptr<Matmul> matmul_;
  Candidate chosen_{};
  std::vector<receipt::Candidate> tried_;
  const device::Operands* operands_ = nullptr;
};

}  // namespace

std::vector<std::string> arm_names() { return {std::string(kName), std::string(kName) + "-default"}; }

std::unique_ptr<Arm> make_arm(const std::string& name) {
  if (name == kName) return std::make_unique<VendorArm>(name, true);
  if (name == std::string(kName) + "-default") return std::make_unique<VendorArm>(name, false);
  return nullptr;
}

}  // namespace tilewise::cublaslt
