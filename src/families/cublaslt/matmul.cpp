#include "families/cublaslt/matmul.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>

namespace tilewise::cublaslt {

namespace {

void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(fmt::format("cuBLASLt: {} failed: {}", call, cublasLtGetStatusString(s)));
}
#define TW_LT(call) check((call), #call)

cudaDataType_t cuda_type(DType d) {
  switch (d) {
    case DType::bf16: return CUDA_R_16BF;
    case DType::fp16: return CUDA_R_16F;
    case DType::fp8_e4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

template <typename T>
void set_attribute(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, T value, const char* name) {
  const cublasStatus_t s = cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &value, sizeof value);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Unsupported(fmt::format("cuBLASLt refuses {} = {}: {}", name, int64_t(value), cublasLtGetStatusString(s)));
}

template <typename T>
T algo_attribute(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  size_t written = 0;
  TW_LT(cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written));
  return value;
}

// What the algorithm needs of A, B and C (C is also D).
std::array<uint32_t, 3> alignments(const cublasLtMatmulAlgo_t& algo) {
  std::array<uint32_t, 3> out{};
  const cublasLtMatmulAlgoCapAttributes_t caps[] = {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES,
                                                     CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES,
                                                     CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES};
  for (size_t i = 0; i < out.size(); ++i) {
    size_t written = 0;
    TW_LT(cublasLtMatmulAlgoCapGetAttribute(&algo, caps[i], &out[i], sizeof out[i], &written));
  }
  uint32_t d = 0;
  size_t written = 0;
  TW_LT(cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES, &d, sizeof d, &written));
  out[2] = std::max(out[2], d);
  return out;
}

}  // namespace

Context::Context(size_t workspace_bytes) : workspace_(workspace_bytes) { TW_LT(cublasLtCreate(&handle_)); }
Context::~Context() { cublasLtDestroy(handle_); }

Matmul::Matmul(const Context& ctx, const Problem& p) : ctx_(ctx), p_(p) {
  validate(p);
  TW_LT(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t op_a = p.layout == Layout::TN ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = CUBLAS_OP_N;
  TW_LT(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a));
  TW_LT(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b));
  // Matrices as stored, column-major: A is K x M (TN) or M x K (NN), B is K x N, C is M x N.
  const bool tn = p.layout == Layout::TN;
  TW_LT(cublasLtMatrixLayoutCreate(&a_, cuda_type(p.dtype), uint64_t(tn ? p.K : p.M), uint64_t(tn ? p.M : p.K), p.lda));
  TW_LT(cublasLtMatrixLayoutCreate(&b_, cuda_type(p.dtype), uint64_t(p.K), uint64_t(p.N), p.ldb));
  TW_LT(cublasLtMatrixLayoutCreate(&c_, cuda_type(output_dtype(p.dtype)), uint64_t(p.M), uint64_t(p.N), p.ldc));
}

Matmul::~Matmul() {
  cublasLtMatrixLayoutDestroy(c_);
  cublasLtMatrixLayoutDestroy(b_);
  cublasLtMatrixLayoutDestroy(a_);
  cublasLtMatmulDescDestroy(desc_);
}

std::vector<Candidate> Matmul::heuristic(int requested) const {
  cublasLtMatmulPreference_t pref = nullptr;
  TW_LT(cublasLtMatmulPreferenceCreate(&pref));
  const size_t ws = ctx_.workspace_bytes();
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(requested));
  int returned = 0;
  cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(ctx_.handle(), desc_, a_, b_, c_, c_, pref, requested, results.data(), &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (s == CUBLAS_STATUS_NOT_SUPPORTED)
    throw Unsupported(fmt::format("cuBLASLt {} does not support {}", cublasLtGetVersion(), describe(p_)));
  check(s, "cublasLtMatmulAlgoGetHeuristic");
  std::vector<Candidate> out;
  for (int i = 0; i < returned; ++i)
    if (results[size_t(i)].state == CUBLAS_STATUS_SUCCESS)
      out.push_back({results[size_t(i)].algo, decode(results[size_t(i)].algo), results[size_t(i)].workspaceSize,
                     alignments(results[size_t(i)].algo)});
  if (out.empty()) throw Unsupported(fmt::format("cuBLASLt offers no algorithm for {}", describe(p_)));
  return out;
}

std::vector<int> Matmul::algo_ids() const {
  const cudaDataType_t in = cuda_type(p_.dtype), out = cuda_type(output_dtype(p_.dtype));
  std::vector<int> ids(1024);
  int returned = 0;
  TW_LT(cublasLtMatmulAlgoGetIds(ctx_.handle(), CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, out, out, int(ids.size()),
                                 ids.data(), &returned));
  ids.resize(size_t(returned));
  return ids;
}

cublasLtMatmulAlgo_t Matmul::init(int algo_id) const {
  const cudaDataType_t in = cuda_type(p_.dtype), out = cuda_type(output_dtype(p_.dtype));
  cublasLtMatmulAlgo_t algo{};
  const cublasStatus_t s =
      cublasLtMatmulAlgoInit(ctx_.handle(), CUBLAS_COMPUTE_32F, CUDA_R_32F, in, in, out, out, algo_id, &algo);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Unsupported(fmt::format("cuBLASLt algo {}: {}", algo_id, cublasLtGetStatusString(s)));
  return algo;
}

Candidate Matmul::configured(const Config& c) const {
  cublasLtMatmulAlgo_t algo = init(c.algo_id);
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile, "tile");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages, "stages");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.splitk, "splitk");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.reduction, "reduction");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle, "swizzle");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom, "custom");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, c.inner_shape, "inner");
  set_attribute(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster, "cluster");
  cublasLtMatmulHeuristicResult_t result{};
  const cublasStatus_t s = cublasLtMatmulAlgoCheck(ctx_.handle(), desc_, a_, b_, c_, c_, &algo, &result);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Unsupported(fmt::format("cuBLASLt rejects {} for {}: {}", to_string(c), describe(p_), cublasLtGetStatusString(s)));
  if (result.workspaceSize > ctx_.workspace_bytes())
    throw Unsupported(fmt::format("cuBLASLt {} needs {} bytes of workspace, over the {} bytes every arm shares",
                                  to_string(c), result.workspaceSize, ctx_.workspace_bytes()));
  return {algo, decode(algo), result.workspaceSize, alignments(algo)};  // what cuBLASLt holds, should it normalize a field
}

void Matmul::run(const Candidate& c, const void* A, const void* B, void* C, cudaStream_t stream) const {
  // cuBLASLt launches on whatever it is given; its algorithms each need some alignment of every matrix (up to 256
  // bytes, what its heuristic assumes by default).
  for (const auto& [ptr, name, align] : {std::tuple<const void*, const char*, uint32_t>{A, "A", c.alignment[0]},
                                         {B, "B", c.alignment[1]}, {C, "C", c.alignment[2]}})
    if (!ptr || reinterpret_cast<uintptr_t>(ptr) % std::max<uint32_t>(align, 1))
      throw Error(fmt::format("cuBLASLt {} on {}: {} at {} is not a {}-byte-aligned device pointer", to_string(c.config),
                              describe(p_), name, ptr, align));
  const float alpha = 1.0f, beta = 0.0f;
  TW_LT(cublasLtMatmul(ctx_.handle(), desc_, &alpha, A, a_, B, b_, &beta, C, c_, C, c_, &c.algo, ctx_.workspace(),
                       ctx_.workspace_bytes(), stream));
}

Config decode(const cublasLtMatmulAlgo_t& algo) {
  Config c;
  c.algo_id = algo_attribute<int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  c.tile = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.reduction = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.swizzle = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom = algo_attribute<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  c.inner_shape = algo_attribute<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
  c.cluster = algo_attribute<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  return c;
}

}  // namespace tilewise::cublaslt
