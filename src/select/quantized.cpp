// nn.Linear on packed weights (include/tilewise/quantized.hpp): the decode GEMV family's formats and kernels in
// nn.Linear's orientation, y rows (families/gemv/view.hpp), with a context keeping one kernel per format and shape.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <optional>

#include "device/cuda.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/quantize.hpp"
#include "families/sm90/packed.hpp"
#include "jit/cache.hpp"
#include "select/context_state.hpp"
#include "select/packed_crossover.hpp"
#include "select/quantized.hpp"
#include "tilewise/quantized.hpp"

namespace tilewise {

namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128,
                                     WeightFormat::fp8};
static_assert(int(WeightFormat::q8_0) == int(gemv::Format::q8_0) &&
              int(WeightFormat::int4_g32) == int(gemv::Format::int4_g32) &&
              int(WeightFormat::int4_g128) == int(gemv::Format::int4_g128) &&
              int(WeightFormat::fp8) == int(gemv::Format::fp8));
gemv::Format gemv_format(WeightFormat f) { return gemv::Format(int(f)); }

gemv::PackedLayout layout_of(const PackedShape& s) {
  const gemv::PackedLayout l = gemv::packed_layout(gemv_format(s.format), s.out_features, s.in_features);
  if (l.row_bytes != s.row_bytes || l.scale_bytes != s.scale_bytes)
    throw Error(fmt::format("packed {} weights of {} x {}: row_bytes {} and scale_bytes {} are not the format's {} and {}",
                            to_string(s.format), s.out_features, s.in_features, s.row_bytes, s.scale_bytes,
                            l.row_bytes, l.scale_bytes));
  return l;
}

void require_source(const void* w, DType dtype, int64_t ld, const PackedShape& s, const void* q, const void* scales) {
  if (dtype == DType::fp8_e4m3) throw Error("quantize takes bf16 or fp16 weights, not fp8");
  gemv::require_source(dtype, s.out_features, s.in_features, ld);
  if (!w || !q || !scales)
    throw Error(fmt::format("quantize needs the weights ({}), q ({}) and scales ({})", w, q, scales));
}

// The layout dequantize reads `w` in, once every pointer it needs is there.
gemv::PackedLayout dequantize_layout(const PackedWeights& w, const void* out) {
  const gemv::PackedLayout l = layout_of(w.shape);
  if (!w.q || !w.scales || !out) throw Error("dequantize needs q, scales and the output");
  return l;
}

}  // namespace

std::string_view to_string(WeightFormat f) { return gemv::to_string(gemv_format(f)); }

WeightFormat parse_weight_format(std::string_view s) {
  for (WeightFormat f : kFormats)
    if (to_string(f) == s) return f;
  throw Error(fmt::format("unknown weight format '{}' (known: q8_0, int4g32, int4g128, fp8)", s));
}

PackedShape packed_shape(WeightFormat f, int64_t out_features, int64_t in_features) {
  const gemv::PackedLayout l = gemv::packed_layout(gemv_format(f), out_features, in_features);
  return {f, out_features, in_features, l.row_bytes, l.scale_bytes};
}

void quantize(const void* w, DType dtype, int64_t ld, const PackedShape& s, void* q, void* scales, cudaStream_t stream) {
  layout_of(s);
  require_source(w, dtype, ld, s, q, scales);
  const gemv::PackedWeights packed =
      gemv::quantize(w, dtype, s.out_features, s.in_features, ld, gemv_format(s.format), stream);
  TW_CUDA(cudaMemcpyAsync(q, packed.q.get(), size_t(s.q_bytes()), cudaMemcpyDeviceToDevice, stream));
  TW_CUDA(cudaMemcpyAsync(scales, packed.scales.get(), size_t(s.scale_bytes), cudaMemcpyDeviceToDevice, stream));
  TW_CUDA(cudaStreamSynchronize(stream));  // before `packed` is freed
}

void quantize_host(const void* w, DType dtype, int64_t ld, const PackedShape& s, void* q, void* scales) {
  layout_of(s);
  require_source(w, dtype, ld, s, q, scales);
  const gemv::HostPacked packed =
      gemv::quantize_cpu(w, dtype, s.out_features, s.in_features, ld, gemv_format(s.format));
  std::memcpy(q, packed.q.data(), packed.q.size());
  std::memcpy(scales, packed.scales.data(), packed.scales.size());
}

void dequantize(const PackedWeights& w, float* out, cudaStream_t stream) {
  gemv::dequantize(dequantize_layout(w, out), w.q, w.scales, out, stream);
}

void dequantize(const PackedWeights& w, void* out, DType out_dtype, cudaStream_t stream) {
  gemv::dequantize(dequantize_layout(w, out), w.q, w.scales, out, out_dtype, stream);
}

void dequantize_host(const PackedWeights& w, float* out) {
  gemv::HostPacked h{dequantize_layout(w, out), {}, {}};
  const auto* q = static_cast<const uint8_t*>(w.q);
  const auto* scales = static_cast<const uint8_t*>(w.scales);
  h.q.assign(q, q + h.layout.q_bytes());
  h.scales.assign(scales, scales + h.layout.scale_bytes);
  const std::vector<float> values = gemv::dequantize_cpu(h);
  std::memcpy(out, values.data(), values.size() * sizeof(float));
}

void pack_for_tensor_cores(const PackedWeights& w, void* q_mma, void* scales_mma, cudaStream_t stream) {
  const gemv::PackedLayout l = layout_of(w.shape);
  if (auto why = sm90::kernel_order_unsupported(l)) throw Unsupported(*why);
  if (!w.q || !w.scales || !q_mma || !scales_mma) throw Error("the kernel order needs q, scales and both outputs");
  // The kernel bulk-copies both outputs in 16-byte units; the reorder reads the scales as 16-bit values.
  const auto misaligned = [](const void* p, uintptr_t to) { return reinterpret_cast<uintptr_t>(p) % to != 0; };
  if (misaligned(q_mma, 16) || misaligned(scales_mma, 16) || misaligned(w.scales, 2))
    throw Error(fmt::format("pack_for_tensor_cores: q_mma ({}) and scales_mma ({}) must be 16-byte aligned and scales "
                            "({}) 2-byte aligned",
                            q_mma, scales_mma, w.scales));
  // Outputs written over an input or each other would race the reorder's reads.
  struct Bytes {
    const void* at;
    int64_t count;
  };
  const auto overlap = [](Bytes a, Bytes b) {
    const uintptr_t x = reinterpret_cast<uintptr_t>(a.at), y = reinterpret_cast<uintptr_t>(b.at);
    return x < y + uintptr_t(b.count) && y < x + uintptr_t(a.count);
  };
  const Bytes q_in{w.q, l.q_bytes()}, s_in{w.scales, l.scale_bytes}, q_out{q_mma, l.q_bytes()},
      s_out{scales_mma, l.scale_bytes};
  if (overlap(q_out, s_out) || overlap(q_out, q_in) || overlap(q_out, s_in) || overlap(s_out, q_in) ||
      overlap(s_out, s_in))
    throw Error("pack_for_tensor_cores: q_mma and scales_mma must not overlap each other, q or scales");
  sm90::to_kernel_order(l, w.q, w.scales, q_mma, scales_mma, stream);
}

namespace {

// The gemv's own form of linear: tokens as M, the F weight rows as N, y rows (out[m * ldc + n]).
Problem gemv_problem(const PackedShape& s, int64_t tokens, DType act) {
  return {"linear", tokens, s.out_features, s.in_features, act, Layout::TN, s.in_features, s.in_features,
          s.out_features};
}

// The gemv on the weights' tensor-core copy, where its engine takes the format, tokens and shape (int4 at 1..8 tokens,
// x within the SM's shared memory) and keeps enough warps on an SM to run ahead of the sm90 kernel: counted with the
// registers of the kernel as compiled (from the JIT cache, where linear finds it when it runs the gemv; kept by the
// context).
std::optional<gemv::Config> order_gemv(const Context& ctx, const PackedShape& s, int64_t tokens, DType act) {
  if (tokens > kGemvMaxTokens) return std::nullopt;
  const auto& state = ContextAccess::state(ctx);
  const Problem p = gemv_problem(s, tokens, act);
  std::optional<gemv::Config> c =
      gemv::default_config_on(p, gemv_format(s.format), gemv::Engine::mma_order, state.sm_count);
  if (!c) return std::nullopt;
  const jit::KernelBuild build = gemv::kernel_build(*c, /*y_rows=*/true);
  auto registers = state.gemv_registers.find(build.config_text);
  if (registers == state.gemv_registers.end())
    registers = state.gemv_registers.emplace(build.config_text, jit::build(build).usage.registers).first;
  if (!select::order_gemv_ahead(gemv::resident_warps(*c, p, state.sm_count, registers->second))) return std::nullopt;
  return c;
}

LinearKernel kernel_for(const Context& ctx, const PackedWeights& w, int64_t tokens, DType act) {
  const auto& state = ContextAccess::state(ctx);
  if (tokens > kGemvMaxTokens) return LinearKernel::sm90;
  if (!w.q) return order_gemv(ctx, w.shape, tokens, act) ? LinearKernel::gemv_mma_order : LinearKernel::sm90;
  return w.q_mma && state.packed_crossover &&
                 select::tensor_cores_ahead(w.shape.format, tokens, w.shape.in_features, w.shape.out_features)
             ? LinearKernel::sm90
             : LinearKernel::gemv;
}

// On the copy alone the choice weighs the gemv's configuration (order_gemv), so it is made once a format, token
// count, shape and x type, not on every call.
LinearKernel copy_alone_kernel(Context& ctx, const PackedWeights& w, int64_t tokens, DType act) {
  auto& chosen = ContextAccess::state(ctx).copy_alone;
  const auto key = std::tuple(int(w.shape.format), tokens, w.shape.out_features, w.shape.in_features, act);
  auto it = chosen.find(key);
  if (it == chosen.end()) it = chosen.emplace(key, kernel_for(ctx, w, tokens, act)).first;
  return it->second;
}

// nn.Linear as TN with M = F, N = tokens, A = the weights' tensor-core copy, swapped onto wgmma's 64-row side
// (families/sm90/packed.hpp).
void linear_sm90(Context& ctx, const void* x, int64_t tokens, DType act, const PackedWeights& w, void* y,
                 cudaStream_t stream) {
  const PackedShape& s = w.shape;
  auto& state = ContextAccess::state(ctx);
  if (!w.q_mma)
    throw Unsupported(fmt::format("linear on packed {} weights serves 1..{} tokens from q and scales, not {}: give "
                                  "the weights' tensor-core copy (pack_for_tensor_cores) or dequantize and run gemm",
                                  to_string(s.format), kGemvMaxTokens, tokens));
  const Problem p = linear_problem(tokens, s.out_features, s.in_features, act);
  std::unique_ptr<sm90::Gemm>& gemm = state.packed_mma[{int(s.format), tokens, s.out_features, s.in_features, act, stream}];
  if (!gemm) {
    validate(p);
    const device::RelaxedCapture relaxed;  // stream-K's scratch is allocated here, also inside a graph's capture
    sm90::Limits limits;
    limits.sm_count = state.sm_count;
    const sm90::Weights weights = sm90::packed_weights(gemv_format(s.format));
    gemm = std::make_unique<sm90::Gemm>(p, sm90::packed_rule(p, limits, weights, true), state.sm_count,
                                        &state.scratch_of(stream));
  }
  gemm->run(w.q_mma, x, y, stream, w.scales_mma);  // checks every pointer and its alignment first
}

// The gemv on rows of K (q, scales) or on the tensor-core copy (q_mma, scales_mma), by `kernel`.
void linear_gemv(Context& ctx, LinearKernel kernel, const void* x, int64_t tokens, DType act, const PackedWeights& w,
                 void* y, cudaStream_t stream) {
  const PackedShape& s = w.shape;
  auto& state = ContextAccess::state(ctx);
  const Problem p = gemv_problem(s, tokens, act);
  const bool order = kernel == LinearKernel::gemv_mma_order;
  auto& built = state.packed[{int(s.format), tokens, s.out_features, s.in_features, act, order}];
  if (!built) {
    validate(p);
    const device::RelaxedCapture relaxed;  // the kernel is loaded here, also inside a graph's capture
    const gemv::Config c = order ? *order_gemv(ctx, s, tokens, act)
                                 : gemv::default_config(p, gemv_format(s.format), state.sm_count);
    built = std::make_unique<gemv::Kernel>(c, true);
  }
  gemv::Args a;
  a.x = x, a.ldx = s.in_features;
  a.w = order ? w.q_mma : w.q, a.w_row_bytes = s.row_bytes, a.scales = order ? w.scales_mma : w.scales;
  a.out = y, a.ldc = s.out_features;
  built->launch(p, a, stream);  // checks every pointer and its alignment first
}

}  // namespace

std::string_view to_string(LinearKernel k) {
  switch (k) {
    case LinearKernel::gemv: return "gemv";
    case LinearKernel::gemv_mma_order: return "gemv mma-order";
    case LinearKernel::sm90: return "sm90";
  }
  return "?";
}

LinearKernel linear_kernel(const Context& ctx, const PackedWeights& w, int64_t tokens) {
  // bf16 and fp16 x take the same kernels: the same engines and the same shared memory.
  return kernel_for(ctx, w, tokens, DType::bf16);
}

void linear(Context& ctx, const void* x, int64_t tokens, DType act, const PackedWeights& w, void* y,
            cudaStream_t stream) {
  select::run_linear(ctx, x, tokens, act, w, y, stream);
}

LinearKernel select::run_linear(Context& ctx, const void* x, int64_t tokens, DType act, const PackedWeights& w, void* y,
                                cudaStream_t stream) {
  const PackedShape& s = w.shape;
  layout_of(s);  // the shape's sizes are the format's
  if (act == DType::fp8_e4m3) throw Error("linear on packed weights takes bf16 or fp16 activations, not fp8");
  if (tokens < 1) throw Error(fmt::format("linear on packed weights: {} tokens", tokens));
  // Before the choice, which reads which orders are given.
  if (!w.q != !w.scales)
    throw Error(fmt::format("linear on packed {} weights: q ({}) and scales ({}) come together", to_string(s.format),
                            w.q, w.scales));
  if (!w.q_mma != !w.scales_mma)
    throw Error(fmt::format("linear on packed {} weights: q_mma ({}) and scales_mma ({}) come together",
                            to_string(s.format), w.q_mma, w.scales_mma));
  if (!w.q && !w.q_mma)
    throw Error(fmt::format("linear on packed {} weights needs q and scales, or their tensor-core copy q_mma and "
                            "scales_mma (pack_for_tensor_cores)",
                            to_string(s.format)));
  const LinearKernel kernel = w.q ? kernel_for(ctx, w, tokens, act) : copy_alone_kernel(ctx, w, tokens, act);
  if (kernel == LinearKernel::sm90)
    linear_sm90(ctx, x, tokens, act, w, y, stream);
  else
    linear_gemv(ctx, kernel, x, tokens, act, w, y, stream);
  return kernel;
}

}  // namespace tilewise
