#include "families/sm90/tensor_map.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encode_function() {
  static const EncodeTiled fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult status{};
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &status);
    if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || !f)
      throw Error("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver)");
    return reinterpret_cast<EncodeTiled>(f);
  }();
  return fn;
}

}  // namespace

static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) == alignof(CUtensorMap));

std::string tensor_map_key(const TensorMapSpec& s) {
  return fmt::format("{}:{}{}:{}x{}:{}:{}x{}", s.base, s.element_bytes, s.float16 ? "h" : "", s.inner, s.rows,
                     s.row_bytes, s.box_inner, s.box_rows);
}

TensorMap encode_tensor_map(const TensorMapSpec& s) {
  const CUtensorMapDataType type = s.element_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : s.float16          ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const cuuint64_t dims[2] = {s.inner, s.rows};
  const cuuint64_t strides[1] = {s.row_bytes};
  const cuuint32_t box[2] = {s.box_inner, s.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map;
  const CUresult r = encode_function()(&map, type, 2, const_cast<void*>(s.base), dims, strides, box, element_strides,
                                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(fmt::format("cuTensorMapEncodeTiled refused {} (error {}): base {} must be 16-byte aligned and "
                            "the row stride {} bytes a multiple of 16", tensor_map_key(s), int(r), s.base, s.row_bytes));
  TensorMap out;
  static_assert(sizeof(out) == sizeof(map));
  __builtin_memcpy(&out, &map, sizeof(map));
  return out;
}

}  // namespace tilewise::sm90
