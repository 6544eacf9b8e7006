#include "families/sm90/family.hpp"

#include "core/error.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/tuning.hpp"

namespace tilewise::sm90 {

namespace {

Limits limits_for(int sm_count) {
  Limits limits;
  limits.sm_count = sm_count;
  return limits;
}

class GemmKernel : public families::Kernel {
 public:
  GemmKernel(const Problem& p, const Config& c, const families::Resources& r)
      : Kernel(to_string(c)), gemm_(p, c, r.sm_count, r.scratch) {}
  void run(const void* A, const void* B, void* C, cudaStream_t s) override { gemm_.run(A, B, C, s); }

 private:
  Gemm gemm_;
};

class Sm90 : public families::Family {
 public:
  std::string_view name() const override { return kName; }
  std::string canonical(std::string_view config) const override { return to_string(parse_config(config)); }
  std::string describe(std::string_view config) const override { return sm90::describe(parse_config(config)); }
  families::Fields tuner_fields(std::string_view config) const override {
    return sm90::tuner_fields(parse_config(config));
  }
  std::vector<std::string> field_names() const override { return keys(sm90::tuner_fields(Config{})); }

  std::optional<std::string> infeasible(std::string_view config, const Problem& p, int sm_count) const override {
    const Config c = parse_config(config);
    if (auto why = needs_packed_operands(c)) return why;
    return sm90::infeasible(c, p, limits_for(sm_count));
  }

  std::optional<std::string> rule(const Problem& p, int sm_count) const override {
    try {
      return to_string(first_rule(p, limits_for(sm_count)));
    } catch (const Unsupported&) {  // a stride TMA cannot load
      return std::nullopt;
    }
  }
  std::vector<std::string> rule_candidates(const Problem& p, int sm_count) const override {
    std::vector<std::string> out;
    try {
      for (const Config& c : sm90::rule_candidates(p, limits_for(sm_count))) out.push_back(to_string(c));
    } catch (const Unsupported&) {
    }
    return out;
  }

  std::vector<families::Instantiation> instantiations(const Problem& p, std::string_view config) const override {
    const Config c = parse_config(config);
    return {{kernel_build(c, p), shared_bytes(c)}};
  }
  std::unique_ptr<families::Kernel> build(const Problem& p, std::string_view config,
                                          const families::Resources& r) const override {
    return std::make_unique<GemmKernel>(p, parse_config(config), r);
  }

  families::Tunable tunable(const Problem& p, const families::Resources& r,
                            const std::optional<std::string>& start) const override {
    return sm90::tunable(p, limits_for(r.sm_count),
                         start ? std::optional<Config>(parse_config(*start)) : std::nullopt);
  }

  std::vector<std::string> arm_names() const override {
    const std::string n(kName);
    std::vector<std::string> names{n, n + "@<config>", n + ":<config>", n + ":sweep"};
    for (const std::string& packed : packed_arm_names()) names.push_back(packed), names.push_back(packed + "@<config>");
    return names;
  }
  std::unique_ptr<families::Arm> make_arm(const std::string& name) const override { return sm90::make_arm(name); }
  std::optional<std::string> recorded_config(const nlohmann::json& arm_config) const override {
    return families::recorded_text(arm_config, "config", *this);  // sm90/arms.cpp, gemm_config
  }
};

}  // namespace

const families::Family& family() {
  static const Sm90 f;
  return f;
}

}  // namespace tilewise::sm90
