#include "families/gemv/family.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/gemv/arms.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/tuning.hpp"
#include "families/gemv/view.hpp"

namespace tilewise::gemv {

namespace {

// A configuration of packed weights, which tilewise::gemm cannot pass: why, or empty.
std::string packed(const Config& c, const Problem& p) {
  if (is_native(c.weights, p.dtype)) return "";
  return fmt::format("w={} is a packed format; tilewise::gemm passes the weights as the problem stores them ({})",
                     to_string(c.weights), to_string(native_format(p.dtype)));
}

// Why `c` cannot run p's own weights through its view, or empty.
std::string why_not(const Config& c, const Problem& p) {
  const std::optional<View> v = view_of(p);
  if (!v) return *unsupported(p);
  if (std::string why = packed(c, p); !why.empty()) return why;
  return infeasible(c, v->problem);
}

class ViewKernel : public families::Kernel {
 public:
  ViewKernel(const View& v, const Config& c) : families::Kernel(to_string(c)), view_(v), kernel_(c, v.tokens_as_n) {}
  void run(const void* A, const void* B, void* C, cudaStream_t s) override {
    kernel_.launch(view_.problem, view_args(view_, view_.problem, A, B, C), s);
  }

 private:
  View view_;
  gemv::Kernel kernel_;
};

class Gemv : public families::Family {
 public:
  std::string_view name() const override { return kName; }
  std::string canonical(std::string_view config) const override { return to_string(parse_config(config)); }
  std::string describe(std::string_view config) const override { return gemv::describe(parse_config(config)); }
  families::Fields tuner_fields(std::string_view config) const override {
    return gemv::tuner_fields(parse_config(config));
  }
  std::vector<std::string> field_names() const override { return keys(gemv::tuner_fields(Config{})); }

  std::optional<std::string> infeasible(std::string_view config, const Problem& p, int) const override {
    std::string why = why_not(parse_config(config), p);
    if (why.empty()) return std::nullopt;
    return why;
  }
  // The configuration holds its token count; the rest serves as tuned.
  std::string for_problem(std::string_view config, const Problem& p) const override {
    Config c = parse_config(config);
    if (const std::optional<View> v = view_of(p)) c.m = int(v->problem.M);
    return to_string(c);
  }

  std::optional<std::string> rule(const Problem& p, int sm_count) const override {
    const std::optional<View> v = view_of(p);
    if (!v) return std::nullopt;
    try {
      return to_string(default_config(v->problem, native_format(p.dtype), sm_count));
    } catch (const Unsupported&) {
      return std::nullopt;
    }
  }

  std::vector<families::Instantiation> instantiations(const Problem& p, std::string_view config) const override {
    const Config c = parse_config(config);
    const std::optional<View> v = view_of(p);
    if (!v) return {};
    return {{kernel_build(c, v->tokens_as_n), int(dynamic_shared_bytes(c, v->problem.K))}};
  }
  std::unique_ptr<families::Kernel> build(const Problem& p, std::string_view config,
                                          const families::Resources&) const override {
    const Config c = parse_config(config);
    const View v = require_view(p);
    // A configuration that can never run here is a broken entry, not a problem the family declines.
    if (std::string why = packed(c, p); !why.empty()) throw Error(fmt::format("gemv {}: {}", to_string(c), why));
    require_feasible(c, v.problem);
    return std::make_unique<ViewKernel>(v, c);
  }

  std::optional<std::string> declines(const Problem& p) const override { return unsupported(p); }
  families::Tunable tunable(const Problem& p, const families::Resources& r,
                            const std::optional<std::string>& start) const override {
    return gemv::tunable(p, r.sm_count, start ? std::optional<Config>(parse_config(*start)) : std::nullopt);
  }

  std::vector<std::string> arm_names() const override { return gemv::arm_names(); }
  std::unique_ptr<families::Arm> make_arm(const std::string& name) const override { return gemv::make_arm(name); }
  std::optional<std::string> recorded_config(const nlohmann::json& arm_config) const override {
    return families::recorded_text(arm_config, "canonical", *this);  // gemv/config.cpp, to_json
  }
};

}  // namespace

const families::Family& family() {
  static const Gemv f;
  return f;
}

}  // namespace tilewise::gemv
