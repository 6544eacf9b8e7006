#pragma once
// Where linear on packed weights (quantized.cpp) runs the packed sm90 kernel on the weights' tensor-core copy at 1..16
// tokens rather than the gemv: per format, from a token count on, for the K and N where an H200 measured it ahead.
#include <cstdint>
#include <string_view>

#include "tilewise/quantized.hpp"

namespace tilewise::select {

// The GPU the crossover was measured on; on any other the gemv keeps 1..16 tokens. A context asks once, when made.
inline constexpr std::string_view kCrossoverMeasuredOn = "NVIDIA H200";
inline bool crossover_measured_on(std::string_view gpu) { return gpu == kCrossoverMeasuredOn; }

// Whether the sm90 kernel ran ahead of the gemv, on that GPU, for `tokens` (1..16) of format `f` with K = in_features
// and N = out_features.
bool tensor_cores_ahead(WeightFormat f, int64_t tokens, int64_t in_features, int64_t out_features);

// With the tensor-core copy alone (no rows of K), whether the gemv on the copy (engine=mma-order) runs ahead of the
// sm90 kernel on it, given the warps its CTAs keep resident on an SM (gemv::resident_warps).
bool order_gemv_ahead(double resident_warps);

}  // namespace tilewise::select
