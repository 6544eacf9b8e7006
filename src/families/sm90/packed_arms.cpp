// The arms `sm90:int4`, `sm90:int4-g32`, `sm90:int8` and `sm90:fp8`: the sm90 kernel on the weights quantized on the
// GPU into int4 (a scale per 128 or 32 along K), Q8_0 (a scale per 32) or e4m3 (a scale per row) and put in the
// kernel's order (families/sm90/packed.hpp), dequantized into wgmma's registers as it multiplies. The weights are the
// operand the suite's orientation says: B in the seeds' column-major form (tokens as M), A in nn.Linear's (tokens as
// N, run with swapped operands as tilewise::linear runs them). Like the gemv family's quantized arms it is judged
// against its own dequantized weights (families/gemv/quantized_copies.hpp). "sm90:int4@<fields separated by ';'>"
// lays configuration fields over the arm's rule.
#include <fmt/format.h>

#include "device/operands.hpp"
#include "families/gemv/quantized_copies.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/packed.hpp"

namespace tilewise::sm90 {

using families::Arm;
using families::Workbench;

namespace {

constexpr std::pair<const char*, gemv::Format> kPackedArms[] = {{"sm90:int4", gemv::Format::int4_g128},
                                                                {"sm90:int4-g32", gemv::Format::int4_g32},
                                                                {"sm90:int8", gemv::Format::q8_0},
                                                                {"sm90:fp8", gemv::Format::fp8}};

class PackedArm : public Arm {
 public:
  // `overrides`: configuration fields separated by ';', laid over the arm's rule (checked here, before any GPU work).
  PackedArm(std::string name, gemv::Format format, std::string overrides)
      : name_(std::move(name)), format_(format), overrides_(std::move(overrides)) {
    if (!overrides_.empty()) with_overrides(Config{}, overrides_, name_);  // named before any GPU work
  }

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    const Problem& p = wb.problem;
    weights_in_a_ = wb.orientation == Orientation::linear;
    if (weights_in_a_ && p.layout != Layout::TN)
      throw Unsupported(fmt::format("{}: nn.Linear's weights as A are rows of K (TN), not {}", name_, describe(p)));
    const Problem weights_view = kernel_view(p, weights_in_a_);  // tokens as M, the weights as B's N rows of K
    Limits limits;
    limits.sm_count = device::sm_count();
    if (auto why = kernel_order_unsupported(gemv::packed_layout(format_, weights_view.N, p.K))) throw Unsupported(*why);
    const Weights w = packed_weights(format_);
    config_ = packed_rule(p, limits, w, weights_in_a_);
    if (!overrides_.empty())
      config_ = with_overrides(config_, overrides_, name_);
    if (config_.swap != weights_in_a_)  // swapped operands read the packed weights as A
      throw Error(fmt::format("arm {}: swap={} reads {} as the packed weights, but in {} orientation the weights are {} "
                              "(swap={})",
                              name_, int(config_.swap), config_.swap ? "A" : "B", to_string(wb.orientation),
                              weights_in_a_ ? "A" : "B", int(weights_in_a_)));
    config_.weights = w;
    gemm_ = std::make_unique<Gemm>(p, config_, limits.sm_count);  // throws Unsupported where infeasible
    operands_ = &wb.operands;
    quantized_ = gemv::quantize_copies(
        wb, weights_view, format_,
        [](const gemv::PackedWeights& rows, cudaStream_t s) { return to_kernel_order(rows, s); }, weights_in_a_);
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set % operands_->count());
    const gemv::PackedWeights& w = quantized_.copies[size_t(set) % quantized_.copies.size()];
    if (weights_in_a_)
      gemm_->run(w.q.get(), o.b.get(), o.c.get(), stream, w.scales.get());
    else
      gemm_->run(o.a.get(), w.q.get(), o.c.get(), stream, w.scales.get());
  }

  nlohmann::json config() const override {
    const jit::ResourceUsage& u = gemm_->usage();
    return {{"config", to_string(config_)},
            {"grid", gemm_->grid()},
            {"registers", u.registers},
            {"spill_bytes", u.spill_store_bytes + u.spill_load_bytes},
            {"stack_frame_bytes", u.stack_frame_bytes}};
  }
  std::string config_text() const override { return describe(config_); }

  device::Replaced judged_weights() const override { return {quantized_.dequantized.as<float>(), weights_in_a_}; }
  std::string reference_name() const override {
    return fmt::format("dequantized {} weights of set 0", gemv::to_string(format_));
  }
  int rotation_sets() const override { return int(quantized_.copies.size()); }
  int64_t working_set_bytes() const override { return quantized_.working_set; }
  int64_t weight_bytes() const override { return quantized_.weight_bytes; }

 private:
  std::string name_;
  gemv::Format format_;
  std::string overrides_;
  Config config_;
  bool weights_in_a_ = false;  // nn.Linear's orientation
  std::unique_ptr<Gemm> gemm_;
  const device::Operands* operands_ = nullptr;
  gemv::QuantizedCopies quantized_;
};

}  // namespace

std::span<const std::pair<const char*, gemv::Format>> packed_arms() { return kPackedArms; }

std::vector<std::string> packed_arm_names() {
  std::vector<std::string> out;
  for (const auto& [name, _] : kPackedArms) out.emplace_back(name);
  return out;
}

std::unique_ptr<Arm> make_packed_arm(const std::string& name) {
  for (const auto& [arm, format] : kPackedArms) {
    if (name == arm) return std::make_unique<PackedArm>(name, format, "");
    if (name.starts_with(std::string(arm) + "@"))
      return std::make_unique<PackedArm>(name, format, name.substr(std::string(arm).size() + 1));
  }
  return nullptr;
}

}  // namespace tilewise::sm90
