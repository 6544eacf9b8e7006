// The arm `sm90`: our Hopper GEMM with the configuration given in its name ("sm90:block_m=128;stages=5", fields
// separated by ';' because ',' separates arms), for a plain "sm90" the first shape rule, and for "sm90@pdl=0" fields
// laid over the first rule's choice, to compare one setting with the rule's (the rest, the launch attribute among
// them, stays as the rule chose it for its own tile). And `sm90:sweep`: every configuration the first rule chooses
// among (sweep_candidates: with the rungs it has no rate for yet), checked and timed as the cublaslt arm times its
// candidates (families/choose.hpp); the fastest runs, and the receipt keeps every candidate's time, the sweep
// `tilewise fit` fits the rule's constants to.
#include <fmt/format.h>

#include <algorithm>

#include "families/choose.hpp"
#include "families/fields.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/family.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::sm90 {

using families::Arm;
using families::Workbench;

Config with_overrides(const Config& base, const std::string& overrides, const std::string& arm) {
  const std::string text = families::overlay(to_string(base), overrides, fmt::format("arm {}", arm));
  try {
    return parse_config(text);
  } catch (const Error& e) {
    throw Error(fmt::format("arm {}: {}", arm, e.what()));
  }
}

namespace {

// `c` with the fields of `overrides` laid over it; an arm runs a problem's own operands, so packed weights are refused.
Config overlaid(const Config& c, const std::string& overrides, const std::string& arm) {
  const Config out = with_overrides(c, overrides, arm);
  if (auto why = needs_packed_operands(out)) throw Error(fmt::format("arm {}: {}", arm, *why));
  return out;
}

nlohmann::json gemm_config(const Config& c, const Gemm& gemm) {
  const jit::ResourceUsage& u = gemm.usage();
  return {{"config", to_string(c)},
          {"grid", gemm.grid()},
          {"registers", u.registers},
          {"spill_bytes", u.spill_store_bytes + u.spill_load_bytes},
          {"stack_frame_bytes", u.stack_frame_bytes}};
}

class Sm90Arm : public Arm {
 public:
  // `overrides`: fields separated by ';', laid over the first rule's choice.
  Sm90Arm(std::string name, std::optional<Config> fixed, std::string overrides = "")
      : name_(std::move(name)), fixed_(fixed), overrides_(std::move(overrides)) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    operands_ = &wb.operands;
    Limits limits;
    limits.sm_count = device::sm_count();
    config_ = fixed_ ? *fixed_ : first_rule(wb.problem, limits);
    if (!overrides_.empty()) config_ = overlaid(config_, overrides_, name_);
    gemm_ = std::make_unique<Gemm>(wb.problem, config_, limits.sm_count);
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& s = operands_->set(set);
    gemm_->run(s.a.get(), s.b.get(), s.c.get(), stream);
  }

  nlohmann::json config() const override { return gemm_config(config_, *gemm_); }
  std::string config_text() const override { return describe(config_); }

 private:
  std::string name_;
  std::optional<Config> fixed_;
  std::string overrides_;
  Config config_;
  std::unique_ptr<Gemm> gemm_;
  const device::Operands* operands_ = nullptr;
};

class Sm90SweepArm : public Arm {
 public:
  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    operands_ = &wb.operands;
    const int sm_count = device::sm_count();
    Limits limits;
    limits.sm_count = sm_count;
    configs_ = sweep_candidates(wb.problem, limits);
    std::vector<jit::KernelBuild> builds;
    for (const Config& c : configs_) builds.push_back(kernel_build(c, wb.problem));
    try {
      jit::build_all(builds);  // in parallel; the Gemms below then load from the cache
    } catch (const Error&) {  // a candidate that does not build fails on its own below, named, and is recorded
    }
    gemms_.clear();
    gemms_.resize(configs_.size());
    std::vector<nlohmann::json> configs;
    for (const Config& c : configs_) configs.push_back({{"config", to_string(c)}});
    const device::Launch launch = [this](int set, cudaStream_t s) { this->launch(set, s); };
    auto use = [&](size_t i) {
      current_ = nullptr;
      if (!gemms_[i]) gemms_[i] = std::make_unique<Gemm>(wb.problem, configs_[i], sm_count);
      current_ = gemms_[i].get(), chosen_ = i;
    };
    const families::Chosen choice = families::choose_fastest(wb, configs, use, launch);
    tried_ = choice.tried;
    if (!current_) throw Error(fmt::format("sm90:sweep: no rule candidate runs {}", describe(wb.problem)));
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& s = operands_->set(set);
    current_->run(s.a.get(), s.b.get(), s.c.get(), stream);
  }

  nlohmann::json config() const override {
    nlohmann::json j = gemm_config(configs_[chosen_], *current_);
    j["swept"] = configs_.size();
    return j;
  }
  std::string config_text() const override {
    return fmt::format("fastest of {} rule candidates: {}", configs_.size(), describe(configs_[chosen_]));
  }
  std::vector<receipt::Candidate> candidates() const override { return tried_; }

 private:
  std::string name_ = "sm90:sweep";
  std::vector<Config> configs_;
  std::vector<std::unique_ptr<Gemm>> gemms_;
  Gemm* current_ = nullptr;
  size_t chosen_ = 0;
  std::vector<receipt::Candidate> tried_;
  const device::Operands* operands_ = nullptr;
};

}  // namespace

std::unique_ptr<Arm> make_arm(const std::string& name) {
  if (name == kName) return std::make_unique<Sm90Arm>(name, std::nullopt);
  if (name.starts_with(std::string(kName) + "@")) {
    const std::string overrides = name.substr(kName.size() + 1);
    overlaid(Config{}, overrides, name);  // a field or value that does not parse is named here, before any GPU work
    return std::make_unique<Sm90Arm>(name, std::nullopt, overrides);
  }
  const std::string prefix = std::string(kName) + ":";
  if (!name.starts_with(prefix)) return nullptr;
  if (name == prefix + "sweep") return std::make_unique<Sm90SweepArm>();
  if (auto packed = make_packed_arm(name)) return packed;
  std::string fields = name.substr(prefix.size());
  std::replace(fields.begin(), fields.end(), ';', ',');
  const Config c = parse_config(fields);
  if (auto why = needs_packed_operands(c)) throw Error(fmt::format("arm {}: {}", name, *why));
  return std::make_unique<Sm90Arm>(name, c);
}

}  // namespace tilewise::sm90
