// The arms `sm90:int4` and `sm90:int4-g32`: the sm90 kernel on B quantized on the GPU into int4 (a scale per 128 or
// 32 along K) and put in the kernel's order (families/sm90/packed.hpp), dequantized into wgmma's registers as it
// multiplies. B is the weights (the seeds' column-major form, tokens as M). Like the gemv family's quantized arms, it
// is judged against a reference from its own dequantized weights and keeps enough copies of them for a cold run.
// "sm90:int4@<fields separated by ';'>" lays configuration fields over the arm's rule.
#include <fmt/format.h>

#include <algorithm>

#include "device/operands.hpp"
#include "families/fields.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/packed.hpp"

namespace tilewise::sm90 {

using families::Arm;
using families::Workbench;

namespace {

constexpr std::pair<const char*, gemv::Format> kPackedArms[] = {{"sm90:int4", gemv::Format::int4_g128},
                                                                {"sm90:int4-g32", gemv::Format::int4_g32}};

// The first rule's tile for the problem, with what packed weights allow (two consumers at most, no cluster or
// programmatic launch) and the deepest ring that fits the smaller packed stages (up to 8). From 256 tokens, where
// 256 x 128 tiles fill the SMs at least once, those: on three weight shapes at 2048 tokens they ran 0.98-1.01x of
// cuBLASLt bf16 where the first rule's 128 x 128 split 3 ran 0.65x (docs/notes/2026-12-03-packed-sm90.md; fitted
// on those three shapes only).
Config packed_rule(const Problem& p, const Limits& limits, Weights w) {
  TileChoice t = choose_tile(p, limits);
  if (t.consumers == 3) t.block_n = 128, t.consumers = 2;
  if (p.M >= 256 && tile_count(p, 256, 128) >= limits.sm_count) t = TileChoice{256, 128, 2, 1};
  Config c;
  c.block_m = t.block_m, c.block_n = t.block_n, c.consumers = t.consumers, c.split = t.split, c.swap = t.swap;
  c.weights = w;
  for (int split : {c.split, 1}) {
    c.split = split;
    for (Store store : {Store::tma, Store::tma_ring, Store::direct})
      for (int stages = 8; stages >= 2; --stages) {
        c.store = store, c.stages = stages;
        if (!infeasible(c, p, limits)) return c;
      }
  }
  throw Unsupported(fmt::format("sm90 with {} weights: no feasible configuration for {}",
                                to_string(Config{.weights = w}), describe(p)));
}

class PackedArm : public Arm {
 public:
  PackedArm(std::string name, gemv::Format format, std::string overrides)
      : name_(std::move(name)), format_(format), overrides_(std::move(overrides)) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    const Problem& p = wb.problem;
    Limits limits;
    limits.sm_count = device::sm_count();
    const Weights w = packed_weights(format_);
    const gemv::PackedLayout layout = gemv::packed_layout(format_, p.N, p.K);
    if (auto why = kernel_order_unsupported(layout)) throw Unsupported(*why);
    config_ = packed_rule(p, limits, w);
    if (!overrides_.empty()) {  // each field given replaces the rule's, or joins it (swap, pdl)
      std::string text = overrides_;
      std::replace(text.begin(), text.end(), ';', ',');
      families::Fields fields = families::parse_fields(to_string(config_));
      for (const auto& [key, value] : families::parse_fields(text, name_).fields) {
        auto at = std::find_if(fields.fields.begin(), fields.fields.end(), [&](const auto& f) { return f.first == key; });
        if (at != fields.fields.end()) at->second = value;
        else fields.fields.emplace_back(key, value);
      }
      config_ = parse_config(families::to_string(fields));
    }
    if (config_.swap) throw Unsupported(fmt::format("{}: the arm packs B, which swapped operands take as wgmma's width", name_));
    config_.weights = w;
    gemm_ = std::make_unique<Gemm>(p, config_, limits.sm_count);  // throws Unsupported where infeasible

    const int n = wb.operands.count();
    int sets = n;
    if (wb.cold) {
      const int64_t need = device::cold_working_set_bytes(wb.l2_bytes);
      sets = int(std::max<int64_t>(n, (need + layout.bytes() - 1) / layout.bytes()));
    }
    operands_ = &wb.operands;
    packed_.clear();
    for (int i = 0; i < sets; ++i) {
      const gemv::PackedWeights rows =
          gemv::quantize(wb.operands.set(i % n).b.get(), p.dtype, p.N, p.K, p.ldb, format_, wb.stream);
      if (i == 0) {
        dequantized_ = device::Buffer(size_t(p.N * p.K) * sizeof(float));
        gemv::dequantize(rows.layout, rows.q.get(), rows.scales.get(), dequantized_.as<float>(), wb.stream);
      }
      packed_.push_back(to_kernel_order(rows, wb.stream));
      TW_CUDA(cudaStreamSynchronize(wb.stream));  // `rows` is freed at the end of the iteration
    }
    weight_bytes_ = layout.bytes();
    working_set_ = int64_t(sets) * layout.bytes() + int64_t(n) * (a_bytes(p) + c_bytes(p));
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set % operands_->count());
    const gemv::PackedWeights& w = packed_[size_t(set) % packed_.size()];
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

  const float* judged_weights() const override { return dequantized_.as<float>(); }
  std::string reference_name() const override {
    return fmt::format("dequantized {} weights of set 0", gemv::to_string(format_));
  }
  int rotation_sets() const override { return int(packed_.size()); }
  int64_t working_set_bytes() const override { return working_set_; }
  int64_t weight_bytes() const override { return weight_bytes_; }

 private:
  std::string name_;
  gemv::Format format_;
  std::string overrides_;
  Config config_;
  std::unique_ptr<Gemm> gemm_;
  const device::Operands* operands_ = nullptr;
  std::vector<gemv::PackedWeights> packed_;
  device::Buffer dequantized_;
  int64_t weight_bytes_ = 0, working_set_ = 0;
};

}  // namespace

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
