#include "families/sm90/gemm.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.hpp"
#include "families/sm90/feasibility.hpp"
#include "kernels/sm90/args.h"
#include "kernels/sm90/codes.h"

namespace tilewise::sm90 {

namespace {

int input_code(DType d) {
  switch (d) {
    case DType::bf16: return kernels::sm90::input_bf16;
    case DType::fp16: return kernels::sm90::input_fp16;
    case DType::fp8_e4m3: return kernels::sm90::input_fp8;
  }
  throw Error("unknown input type");
}

}  // namespace

jit::KernelBuild kernel_build(const Config& c, const Problem& p) {
  jit::KernelBuild b;
  b.kernel_file = "sm90_gemm.cuh";
  b.name_expression = fmt::format(
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}>>", c.block_m,
      c.block_n, c.stages, c.consumers, c.schedule == Schedule::pingpong ? 1 : 0, c.cluster_m, c.cluster_n,
      c.raster == Raster::m ? 1 : 0, c.group, input_code(p.dtype), p.layout == Layout::NN ? 1 : 0, int(c.store), c.split,
      c.swap ? 1 : 0, c.pdl ? 1 : 0, int(c.weights));
  b.config_text = fmt::format("{} for {} {}", to_string(c), to_string(p.dtype), to_string(p.layout));
  return b;
}

Gemm::Gemm(const Problem& p, const Config& c, int sm_count, device::StreamScratch* scratch) : p_(p), c_(c) {
  require_tma_expressible(p);
  if (const auto why = infeasible(c, p)) throw Unsupported(fmt::format("sm90 {} on {}: {}", to_string(c), describe(p), *why));
  jit::Loaded loaded = jit::load(kernel_build(c, p));
  usage_ = loaded.usage;
  kernel_ = std::move(loaded.kernel);
  kernel_->set_max_dynamic_shared(shared_bytes(c));
  // Persistent: one CTA per SM at most (each needs most of an SM's shared memory), whole clusters only.
  const int cluster = c.cluster_m * c.cluster_n;
  const Problem kp = kernel_view(p, c);
  kernel_m_ = int(kp.M), kernel_n_ = int(kp.N);
  const int64_t tiles_m = (kp.M + c.block_m - 1) / c.block_m, tiles_n = (kp.N + c.block_n - 1) / c.block_n;
  const int64_t cluster_tiles = ((tiles_m + c.cluster_m - 1) / c.cluster_m) * ((tiles_n + c.cluster_n - 1) / c.cluster_n);
  const dim3 block(unsigned(128 * (c.consumers + 1)));
  const int resident = cluster == 1 ? sm_count
                                    : kernel_->max_active_clusters(block, shared_bytes(c), dim3(unsigned(cluster)));
  if (resident < 1) throw Unsupported(fmt::format("sm90 {}: no cluster of {} fits on the GPU", to_string(c), cluster));
  // Stream-K deals k-tiles over as many CTAs as its pieces need, up to every SM; each CTA gets a slot of partials
  // and a flag per consumer, in the stream's scratch (so the Gemm runs on that one stream).
  const int64_t wanted = c.split > 1 ? cluster_tiles * c.split : cluster_tiles;
  grid_ = int(std::min<int64_t>(wanted, resident)) * cluster;
  plan_ = work_plan(cluster_tiles, k_tiles(kp), grid_ / cluster, c.split);
  k_tiles_divisor_ = fast_divisor(int(std::max<int64_t>(k_tiles(kp), 1)));
  if (c.split > 1) {
    if (!scratch) scratch = (own_scratch_ = std::make_unique<device::StreamScratch>()).get();
    scratch_ = scratch->reserve(size_t(grid_) * c.block_m * c.block_n, size_t(grid_) * c.consumers);
  }
}

void Gemm::OperandMap::bind(const TensorMapSpec& spec) {
  if (spec.base == base) return;
  map = encode_tensor_map(spec);
  base = spec.base;
}

void Gemm::bind(const void* A, const void* B, void* C, const void* packed_scales) {
  // Checked here, before any tensor map is encoded or kernel launched: TMA loads A and B from 16-byte-aligned bases,
  // and C takes pairs of elements (the direct store, unswapped, with an even ldc), or 16-byte TMA boxes.
  const size_t c_align = stores_by_tma(c_.store)                                          ? 16
                         : c_.store == Store::direct && !c_.swap && p_.ldc % 2 == 0 ? 4
                                                                                     : 2;
  const bool packed = c_.weights != Weights::as_input;
  if (!packed && packed_scales)
    throw Error(fmt::format("sm90 {} on {}: packed scales given to a configuration without packed weights",
                            to_string(c_), describe(p_)));
  auto require_aligned = [&](const void* ptr, const char* name, size_t align) {
    if (!ptr || reinterpret_cast<uintptr_t>(ptr) % align)
      throw Error(fmt::format("sm90 {} on {}: {} at {} is not a {}-byte-aligned device pointer", to_string(c_),
                              describe(p_), name, ptr, align));
  };
  require_aligned(A, "A", 16);
  require_aligned(B, "B", 16);
  require_aligned(C, "C", c_align);
  if (packed) require_aligned(packed_scales, "the packed scales", 16);
  const int es = element_bytes(p_.dtype);
  const bool f16 = p_.dtype == DType::fp16;
  const uint32_t bk = uint32_t(block_k(p_.dtype));
  const uint64_t M = uint64_t(p_.M), N = uint64_t(p_.N), K = uint64_t(p_.K);
  // In a cluster each CTA loads its half of the shared operand tile, so that operand's box is half as tall.
  const uint32_t a_rows = uint32_t(c_.block_m / c_.cluster_n), b_rows = uint32_t(c_.block_n / c_.cluster_m);
  if (c_.swap) {  // the kernel's A is the problem's B and its B the problem's A, both K-major
    a_map_.bind({B, es, f16, K, N, uint64_t(p_.ldb) * es, bk, a_rows});
    if (!packed) b_map_.bind({A, es, f16, K, M, uint64_t(p_.lda) * es, bk, b_rows});
  } else if (packed) {  // the kernel's B is read by bulk copies, not through a map
    a_map_.bind({A, es, f16, K, M, uint64_t(p_.lda) * es, bk, a_rows});
  } else {
    a_map_.bind(p_.layout == Layout::TN ? TensorMapSpec{A, es, f16, K, M, uint64_t(p_.lda) * es, bk, a_rows}
                                        : TensorMapSpec{A, es, f16, M, K, uint64_t(p_.lda) * es, 64, bk});
    b_map_.bind({B, es, f16, K, N, uint64_t(p_.ldb) * es, bk, b_rows});
  }
  // The configurations that store without TMA never read the output map (the kernel gets the B map in its place).
  if (stores_by_tma(c_.store)) c_map_.bind({C, 2, f16, M, N, uint64_t(p_.ldc) * 2, 64, uint32_t(rows_per_consumer(c_))});
  bound_A_ = A, bound_B_ = B, bound_C_ = C, packed_scales_ = packed_scales;
}

void Gemm::run(const void* A, const void* B, void* C, cudaStream_t stream, const void* packed_scales) {
  // A launch on the buffers of the one before binds nothing; one on new buffers encodes the maps that changed.
  if (!bound_A_ || A != bound_A_ || B != bound_B_ || C != bound_C_ || packed_scales != packed_scales_)
    bind(A, B, C, packed_scales);  // bind checks the pointers
  kernels::Sm90GemmArgs args{C,
                  kernel_m_,
                  kernel_n_,
                  int(p_.K),
                  p_.ldc,
                  plan_.dp_tiles,
                  plan_.sk_ctas,
                  plan_.sk_share,
                  plan_.sk_extra,
                  k_tiles_divisor_.magic,
                  k_tiles_divisor_.shift,
                  scratch_.partials,
                  scratch_.flags,
                  c_.swap ? A : B,
                  packed_scales};
  // The maps a configuration does not read are passed as one it does (the A map is always bound).
  TensorMap* b_map = c_.weights == Weights::as_input ? &b_map_.map : &a_map_.map;
  TensorMap* c_map = stores_by_tma(c_.store) ? &c_map_.map : b_map;
  void* params[] = {&a_map_.map, b_map, c_map, &args};
  kernel_->launch(dim3(unsigned(grid_)), dim3(unsigned(128 * (c_.consumers + 1))), shared_bytes(c_), stream, params,
                  dim3(unsigned(c_.cluster_m * c_.cluster_n)), c_.pdl);
}

}  // namespace tilewise::sm90
