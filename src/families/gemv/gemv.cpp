#include "families/gemv/gemv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "device/cuda.hpp"
#include "jit/kernel.hpp"

namespace tilewise::gemv {

namespace {

int act_code(DType d) {
  switch (d) {
    case DType::bf16: return kernels::gemv::x_bf16;
    case DType::fp16: return kernels::gemv::x_fp16;
    case DType::fp8_e4m3: return kernels::gemv::x_fp8;
  }
  throw Error("unknown activation type");
}
int layout_code(Layout l) { return l == Layout::TN ? kernels::gemv::x_k_major : kernels::gemv::x_m_major; }

}  // namespace

jit::KernelBuild kernel_build(const Config& c, bool y_rows) {
  jit::KernelBuild b;
  const int w = int(c.weights), x = act_code(c.act), xl = layout_code(c.layout), hint = int(c.hint), pdl = int(c.pdl);
  if (c.engine == Engine::mma_order) {
    b.kernel_file = "gemv_mma_order.cuh";
    b.name_expression = fmt::format("tilewise::kernels::gemv::gemv_mma_order<{}, {}, {}, {}, {}, {}, {}, {}, {}>", c.m, w,
                                    x, c.threads, c.ksplit, c.unroll, hint, pdl, int(c.persistent));
  } else if (c.engine == Engine::bulk) {
    b.kernel_file = "gemv_bulk.cuh";
    b.name_expression = fmt::format("tilewise::kernels::gemv::gemv_bulk<{}, {}, {}, {}, {}, {}, {}, {}, {}>", c.m, w, x,
                                    xl, c.threads / 32, c.unroll, c.stages, hint, pdl);
  } else if (c.engine == Engine::mma) {
    b.kernel_file = "gemv_mma.cuh";
    b.name_expression = fmt::format("tilewise::kernels::gemv::gemv_mma<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", c.m,
                                    w, x, xl, c.threads, c.cols, c.ksplit, c.unroll, hint, pdl, int(c.interleave),
                                    int(c.prefetch));
  } else if (c.layout == Layout::NN) {  // the fma engine's form for M-major x
    b.kernel_file = "gemv_nn.cuh";
    b.name_expression = fmt::format("tilewise::kernels::gemv::gemv_nn<{}, {}, {}, {}, {}, {}, {}, {}, {}>", c.m, w, x,
                                    c.threads, c.cols, c.ksplit, c.unroll, hint, pdl);
  } else {
    b.kernel_file = "gemv.cuh";
    b.name_expression = fmt::format("tilewise::kernels::gemv::gemv<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}>", c.m, w, x,
                                    c.threads, c.cols, c.ksplit, c.unroll, hint, pdl, int(c.prefetch));
  }
  if (y_rows) b.name_expression.insert(b.name_expression.size() - 1, ", 1");  // YROWS, after the defaulted 0
  b.config_text = to_string(c) + (y_rows ? " (y rows)" : "");
  return b;
}

Kernel::Kernel(const Config& c, bool y_rows) : config_(c), y_rows_(y_rows) {
  jit::Loaded loaded = jit::load(kernel_build(c, y_rows));
  usage_ = loaded.usage;
  kernel_ = std::move(loaded.kernel);
  if (c.engine == Engine::bulk) kernel_->set_max_dynamic_shared(bulk_shared_bytes(c));
  if (c.engine == Engine::mma_order) kernel_->set_max_dynamic_shared(kMaxSharedBytes);
  // A persistent grid is as many CTAs as fit the GPU at once: what the kernel's registers and shared memory leave.
  resident_ctas_ = device::sm_count() * kernel_->max_active_blocks_per_sm(block_threads(c), bulk_shared_bytes(c));
  if (c.engine == Engine::bulk) {
    // The one failure seen (at 142 KB of shared memory) was the registers: the kernel took at most 256 threads.
    if (resident_ctas_ < 1)
      throw Error(fmt::format("gemv {}: not one CTA fits an SM ({} threads of {} registers, {} bytes of shared memory; "
                              "the kernel takes at most {} threads and {} bytes of dynamic shared memory)",
                              to_string(c), block_threads(c), usage_.registers, bulk_shared_bytes(c),
                              kernel_->attributes().maxThreadsPerBlock, kernel_->attributes().maxDynamicSharedSizeBytes));
  }
}

Kernel::~Kernel() = default;

int Kernel::resident_ctas(int64_t K) const {
  if (config_.engine != Engine::mma_order) return resident_ctas_;
  if (const int64_t known = resident_at_k_.load(std::memory_order_relaxed); known >= 0 && known >> 20 == K)
    return int(known & 0xFFFFF);
  const int ctas = device::sm_count() * kernel_->max_active_blocks_per_sm(block_threads(config_),
                                                                          int(dynamic_shared_bytes(config_, K)));
  resident_at_k_.store(K << 20 | std::min(ctas, 0xFFFFF), std::memory_order_relaxed);
  return ctas;
}

int Kernel::grid(const Problem& p) const {
  const int64_t blocks = (p.N + cta_cols(config_) - 1) / cta_cols(config_);
  if (!config_.persistent) return int(blocks);
  return int(std::min<int64_t>(blocks, std::max(resident_ctas(p.K), 1)));  // the kernel loops over the column blocks
}

std::string args_error(const Config& c, const Problem& p, const Args& a) {
  if (!a.x || !a.w || !a.out) return fmt::format("x ({}), weights ({}) and the output ({}) are all required", a.x, a.w, a.out);
  if (reinterpret_cast<uintptr_t>(a.w) % 16 || a.w_row_bytes % 16 || a.w_row_bytes * elems_per_chunk(c.weights) < p.K * 16)
    return fmt::format("weights at {} with rows {} bytes apart are not 16-byte aligned rows of K = {}", a.w,
                       a.w_row_bytes, p.K);
  // Vector loads: 16 bytes, but 8 of fp8 x a K-major row in the fma engine.
  const int x_align = p.layout == Layout::TN && c.engine == Engine::fma && p.dtype == DType::fp8_e4m3 ? 8 : 16;
  if (c.engine == Engine::bulk && group_size(c.weights) && reinterpret_cast<uintptr_t>(a.scales) % 16)
    return fmt::format("scales at {} are not 16-byte aligned (the bulk engine copies them)", a.scales);
  // Every engine reads a scale as one element: fp16 a group, fp32 an fp8 row (kernels/gemv.cuh, group_scale).
  if (const int scale_align = c.weights == Format::fp8 ? 4 : 2;
      (group_size(c.weights) || c.weights == Format::fp8) && reinterpret_cast<uintptr_t>(a.scales) % scale_align)
    return fmt::format("scales at {} are not {}-byte aligned (their elements)", a.scales, scale_align);
  if (reinterpret_cast<uintptr_t>(a.x) % x_align)
    return fmt::format("x at {} is not {}-byte aligned ({} engine vector loads)", a.x, x_align, to_string(c.engine));
  if (const int out_align = element_bytes(output_dtype(c.act)); reinterpret_cast<uintptr_t>(a.out) % out_align)
    return fmt::format("the output at {} is not {}-byte aligned (its elements)", a.out, out_align);
  // An fp8 problem's own B has no channel scale (scale 1); packed fp8 weights always come with theirs.
  if (!a.scales && (group_size(c.weights) != 0 || (c.weights == Format::fp8 && !is_native(c.weights, p.dtype))))
    return fmt::format("{} weights need their scales", to_string(c.weights));
  return "";
}

void Kernel::launch(const Problem& p, const Args& a, cudaStream_t stream) const {
  require_feasible(config_, p);
  if (std::string why = args_error(config_, p, a); !why.empty()) throw Error("gemv: " + why);
  const unsigned char* x = static_cast<const unsigned char*>(a.x);
  const unsigned char* w = static_cast<const unsigned char*>(a.w);
  long long ldx = a.ldx, w_row_bytes = a.w_row_bytes, ldc = a.ldc;
  const void* scales = a.scales;
  void* out = a.out;
  int N = int(p.N), K = int(p.K);
  void* args[] = {&x, &ldx, &w, &w_row_bytes, &scales, &out, &ldc, &N, &K};
  kernel_->launch(dim3(unsigned(grid(p))), dim3(unsigned(block_threads(config_))),
                  int(dynamic_shared_bytes(config_, p.K)), stream, args, {1, 1, 1}, config_.pdl);
}

}  // namespace tilewise::gemv
