#include "families/cublaslt/space.hpp"

namespace tilewise::cublaslt {

namespace {

template <typename T>
T scalar_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T value{};
  size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS) return T{};
  return value;
}

// An array capability: asked with size 0 for its length first, as cublasLt.h prescribes.
std::vector<uint32_t> ids_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  size_t bytes = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS || bytes == 0)
    return {0};
  std::vector<uint32_t> ids(bytes / sizeof(uint32_t));
  size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, ids.data(), bytes, &written) != CUBLAS_STATUS_SUCCESS) return {0};
  ids.resize(written / sizeof(uint32_t));
  if (ids.empty()) ids.push_back(0);
  return ids;
}

}  // namespace

std::vector<AlgoCaps> capabilities(const Matmul& m) {
  std::vector<AlgoCaps> out;
  for (int id : m.algo_ids()) {
    cublasLtMatmulAlgo_t algo;
    try {
      algo = m.init(id);
    } catch (const Unsupported&) {
      continue;
    }
    AlgoCaps c;
    c.algo_id = id;
    c.tiles = ids_cap(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
    c.stages = ids_cap(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
    c.splitk = scalar_cap<int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
    c.reduction_mask = scalar_cap<uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
    c.swizzle = scalar_cap<uint32_t>(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0;
    c.custom_max = scalar_cap<int32_t>(algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
    out.push_back(std::move(c));
  }
  return out;
}

Candidate resolve(const Matmul& m, const Config& c, const std::vector<Candidate>& offered) {
  for (const Candidate& o : offered)
    if (o.config == c) return o;
  return m.configured(c);
}

std::vector<Candidate> offered(const Matmul& m) {
  try {
    return m.heuristic(32);  // as many as the arms ask for
  } catch (const Unsupported&) {
    return {};
  }
}

}  // namespace tilewise::cublaslt
