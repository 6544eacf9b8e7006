// The decode GEMV arms: the gemv family's default configuration for the problem, with the problem's own weights
// (the arm `gemv` in the problem's type: gemv:bf16 on bf16, gemv:fp16 on fp16, fp8 weights on fp8) or B quantized on
// the GPU into the arm's format. The problem may hold its tokens as M or, in nn.Linear's orientation, as N
// (families/gemv/view.hpp). A quantized arm computes with other weights than B, so it is judged against a reference
// from its own dequantized weights (otherwise the quantization error, not the kernel, would fail the gate), and the
// receipt says so. Its packed weights are smaller than B, so a cold run keeps more copies of them: the arm's own
// rotation covers 4x the L2 by itself.
#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "device/cuda.hpp"
#include "device/operands.hpp"
#include "families/gemv/arms.hpp"
#include "families/gemv/family.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/quantize.hpp"
#include "families/gemv/view.hpp"
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
    if (!overrides_.empty()) {
      std::string text = to_string(config_);
      size_t pos = 0;
      while (pos <= overrides_.size()) {
        const size_t end = std::min(overrides_.find(';', pos), overrides_.size());
        const std::string item = overrides_.substr(pos, end - pos);
        const size_t eq = item.find('=');
        if (eq == std::string::npos) throw Error(fmt::format("arm {}: '{}' is not a gemv field=value", name_, item));
        // A field the default leaves out of its text (stages, prefetch) is added; parse_config names an unknown one.
        const size_t at = text.find("," + item.substr(0, eq + 1));
        if (at == std::string::npos) text += "," + item;
        else text.replace(at + 1, std::min(text.find(',', at + 1), text.size()) - at - 1, item);
        pos = end + 1;
      }
      config_ = parse_config(text);
      require_feasible(config_, p);
    }
    kernel_ = std::make_unique<Kernel>(config_, view_.tokens_as_n);
    packed_.clear();
    const int n = wb.operands.count();
    if (is_native(format_, p.dtype)) {  // reads the problem's weights, rotating with the operands
      weight_bytes_ = p.N * p.K * element_bytes(p.dtype);
      return;
    }
    if (view_.tokens_as_n)  // the runner's quantized reference replaces B, which is x here
      throw Unsupported("quantized weights in nn.Linear's orientation (tokens as N) are not served by the gemv arms");
    const PackedLayout layout = packed_layout(format_, p.N, p.K);
    weight_bytes_ = layout.bytes();
    int sets = n;
    if (wb.cold) {
      const int64_t need = device::cold_working_set_bytes(wb.l2_bytes);
      sets = int(std::max<int64_t>(n, (need + layout.bytes() - 1) / layout.bytes()));
    }
    // Copy i quantizes B of operand set i % n: the copies beyond n hold the same values at other addresses.
    for (int i = 0; i < sets; ++i)
      packed_.push_back(quantize(wb.operands.set(i % n).b.get(), p.dtype, p.N, p.K, p.ldb, format_, wb.stream));
    dequantized_ = device::Buffer(size_t(p.N * p.K) * sizeof(float));
    dequantize(packed_[0].layout, packed_[0].q.get(), packed_[0].scales.get(), dequantized_.as<float>(), wb.stream);
    TW_CUDA(cudaStreamSynchronize(wb.stream));
    working_set_ = int64_t(sets) * layout.bytes() + int64_t(n) * (a_bytes(p) + c_bytes(p));
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set % operands_->count());
    Args a = view_args(view_, view_.problem, o.a.get(), o.b.get(), o.c.get());
    if (!packed_.empty()) {
      const PackedWeights& w = packed_[size_t(set) % packed_.size()];
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
    j["grid"] = kernel_->grid(view_.problem.N);
    j["tokens_as_n"] = view_.tokens_as_n;
    return j;
  }
  std::string config_text() const override { return describe(config_); }

  const float* judged_weights() const override { return packed_.empty() ? nullptr : dequantized_.as<float>(); }
  std::string reference_name() const override {
    return packed_.empty() ? "problem" : fmt::format("dequantized {} weights of set 0", to_string(format_));
  }
  int rotation_sets() const override { return int(packed_.size()); }
  int64_t working_set_bytes() const override { return packed_.empty() ? 0 : working_set_; }
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
  std::vector<PackedWeights> packed_;  // empty when the arm reads B itself
  device::Buffer dequantized_;
  int64_t weight_bytes_ = 0, working_set_ = 0;
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
