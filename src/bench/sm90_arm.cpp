// The arm `sm90`: our Hopper GEMM with the configuration given in its name ("sm90:block_m=128;stages=5", fields
// separated by ';' because ',' separates arms) or, for a plain "sm90", the first shape rule.
#include <fmt/format.h>

#include <algorithm>

#include "bench/arm.hpp"
#include "bench/sm90_arm.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::bench {

namespace {

class Sm90Arm : public Arm {
 public:
  Sm90Arm(std::string name, std::optional<sm90::Config> fixed) : name_(std::move(name)), fixed_(fixed) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    operands_ = &wb.operands;
    sm90::Limits limits;
    limits.sm_count = device::sm_count();
    config_ = fixed_ ? *fixed_ : sm90::first_rule(wb.problem, limits);
    gemm_ = std::make_unique<sm90::Gemm>(wb.problem, config_, limits.sm_count);
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& s = operands_->set(set);
    gemm_->run(s.a.get(), s.b.get(), s.c.get(), stream);
  }

  nlohmann::json config() const override {
    const jit::ResourceUsage& u = gemm_->usage();
    return {{"config", sm90::to_string(config_)},
            {"grid", gemm_->grid()},
            {"registers", u.registers},
            {"spill_bytes", u.spill_store_bytes + u.spill_load_bytes},
            {"stack_frame_bytes", u.stack_frame_bytes}};
  }
  std::string config_text() const override { return sm90::describe(config_); }

 private:
  std::string name_;
  std::optional<sm90::Config> fixed_;
  sm90::Config config_;
  std::unique_ptr<sm90::Gemm> gemm_;
  const device::Operands* operands_ = nullptr;
};

}  // namespace

std::unique_ptr<Arm> make_sm90_arm(const std::string& name) {
  if (name == "sm90") return std::make_unique<Sm90Arm>(name, std::nullopt);
  std::string fields = name.substr(std::string_view("sm90:").size());
  std::replace(fields.begin(), fields.end(), ';', ',');
  return std::make_unique<Sm90Arm>(name, sm90::parse_config(fields));
}

}  // namespace tilewise::bench
