// The decode GEMV arms: the gemv family's default configuration for the problem, with the problem's own weights
// (the arm `gemv` in the problem's type: gemv:bf16 on bf16, gemv:fp16 on fp16, fp8 weights on fp8) or the weights
// quantized on the GPU into the arm's format. The problem may hold its tokens as M (the weights are B) or, in
// nn.Linear's orientation, as N (the weights are A; families/gemv/view.hpp). A quantized arm computes with other
// weights than the problem's, so it is judged against a reference from its own dequantized weights (otherwise the
// quantization error, not the kernel, would fail the gate), and the receipt says so. Its packed weights are smaller
// than the problem's, so a cold run keeps more copies of them: the arm's own rotation covers 4x the L2 by itself.
#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "device/cuda.hpp"
#include "device/operands.hpp"
#include "families/fields.hpp"
#include "families/gemv/arms.hpp"
#include "families/gemv/family.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/quantize.hpp"
#include "families/gemv/quantized_copies.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/packed.hpp"
#include "jit/kernel.hpp"

namespace tilewise::gemv {

using families::Arm;
using families::Workbench;

namespace {

constexpr std::pair<const char*, Format> arm_formats[] = {
    {"gemv:bf16", Format::bf16},         {"gemv:fp16", Format::fp16},
    {"gemv:int8", Format::q8_0},         {"gemv:int4", Format::int4_g128},
    {"gemv:int4-g32", Format::int4_g32}, {"gemv:fp8", Format::fp8}};

class GemvArm : public Arm {
 public:
  // `overrides`: "field=value" pairs (separated by ';') laid over the default configuration, to compare settings.
  // `format` empty: the problem's own weights (native_format).
  GemvArm(std::string name, std::optional<Format> format, std::string overrides = "")
      : name_(std::move(name)), format_arg_(format), overrides_(std::move(overrides)) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    view_ = require_view(wb.problem);
    const Problem& p = view_.problem;
    format_ = format_arg_.value_or(native_format(p.dtype));
    operands_ = &wb.operands;
    // An engine named in the overrides is the engine the default is made for (its own columns, K split, unroll).
    std::optional<Engine> engine;
    if (const size_t at = overrides_.find("engine="); at != std::string::npos)
      engine = parse_engine(overrides_.substr(at + 7, overrides_.find(';', at) - at - 7));
    config_ = default_config(p, format_, device::sm_count(), engine);  // throws Unsupported if the family cannot
    if (!overrides_.empty()) {  // a field the default leaves out of its text (stages, prefetch) joins it
      config_ = parse_config(families::overlay(to_string(config_), overrides_, fmt::format("arm {}", name_)));
      require_feasible(config_, p);
    }
    kernel_ = std::make_unique<Kernel>(config_, view_.tokens_as_n);
    quantized_ = {};
    if (is_native(format_, p.dtype)) {  // reads the problem's weights, rotating with the operands
      weight_bytes_ = p.N * p.K * element_bytes(p.dtype);
      return;
    }
    // The mma-order engine reads the copy the sm90 kernel reads (kernels/sm90/packed.h), the others rows of K.
    Reorder reorder;
    if (config_.engine == Engine::mma_order)
      reorder = [](const PackedWeights& rows, cudaStream_t s) { return sm90::to_kernel_order(rows, s); };
    quantized_ = quantize_copies(wb, p, format_, reorder, view_.tokens_as_n);
    weight_bytes_ = quantized_.weight_bytes;
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set % operands_->count());
    Args a = view_args(view_, view_.problem, o.a.get(), o.b.get(), o.c.get());
    if (const std::vector<PackedWeights>& copies = quantized_.copies; !copies.empty()) {
      const PackedWeights& w = copies[size_t(set) % copies.size()];
      a.w = w.q.get();
      a.w_row_bytes = w.layout.row_bytes;
      a.scales = w.scales.get();
    }
    kernel_->launch(view_.problem, a, stream);
  }

  nlohmann::json config() const override {
    nlohmann::json j = config_;
    const jit::ResourceUsage& u = kernel_->usage();
    j["registers"] = u.registers;
    j["stack_frame_bytes"] = u.stack_frame_bytes;
    j["spill_bytes"] = u.spill_store_bytes + u.spill_load_bytes;
    j["grid"] = kernel_->grid(view_.problem);
    j["tokens_as_n"] = view_.tokens_as_n;
    return j;
  }
  std::string config_text() const override { return describe(config_); }

  device::Replaced judged_weights() const override {
    if (reads_weights()) return {};
    return {quantized_.dequantized.as<float>(), view_.tokens_as_n};
  }
  std::string reference_name() const override {
    return reads_weights() ? "problem" : fmt::format("dequantized {} weights of set 0", to_string(format_));
  }
  int rotation_sets() const override { return int(quantized_.copies.size()); }
  int64_t working_set_bytes() const override { return reads_weights() ? 0 : quantized_.working_set; }
  int64_t weight_bytes() const override { return weight_bytes_; }

 private:
  std::string name_;
  std::optional<Format> format_arg_;
  Format format_ = Format::bf16;
  std::string overrides_;
  View view_;
  const device::Operands* operands_ = nullptr;
  Config config_;
  std::unique_ptr<Kernel> kernel_;
  bool reads_weights() const { return quantized_.copies.empty(); }

  QuantizedCopies quantized_;  // no copies when the arm reads the problem's weights itself
  int64_t weight_bytes_ = 0;
};

}  // namespace

std::vector<std::string> arm_names() {
  std::vector<std::string> out{std::string(kName)};
  for (const auto& [name, _] : arm_formats) out.emplace_back(name);
  return out;
}

std::unique_ptr<Arm> make_arm(const std::string& name) {
  if (name == kName) return std::make_unique<GemvArm>(name, std::nullopt);
  for (const auto& [arm, format] : arm_formats) {
    if (name == arm) return std::make_unique<GemvArm>(name, format);
    if (name.starts_with(std::string(arm) + "@")) return std::make_unique<GemvArm>(name, format, name.substr(strlen(arm) + 1));
  }
  return nullptr;
}

}  // namespace tilewise::gemv
