#pragma once
// Weight quantization for the decode GEMV: bf16/fp16/fp8 weights W[N][K] into each packed format, on the GPU
// (kernels/quantize.cuh) and on the CPU (the reference the GPU must match bit for bit), and the inverse, which gives
// the weights a GEMV actually computes with so its output can be judged against them. The formats and their
// definitions (Q8_0 exactly as ggml, int4 symmetric with a zero point of 8, fp8 with a per-channel scale) are
// documented in kernels/quantize.cuh.
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "device/cuda.hpp"
#include "families/gemv/config.hpp"

namespace tilewise::gemv {

struct PackedLayout {
  Format format = Format::bf16;
  int64_t n = 0, k = 0;
  int64_t row_bytes = 0;    // one row of quantized values: whole 16-byte chunks
  int64_t scale_bytes = 0;  // q8_0 and int4: fp16 [N][K / group]; fp8: fp32 [N]; none otherwise
  int64_t q_bytes() const { return n * row_bytes; }
  int64_t bytes() const { return q_bytes() + scale_bytes; }  // what one GEMV streams from memory
  bool operator==(const PackedLayout&) const = default;
};

// Throws Error naming the rule when N or K is not positive, K does not fill whole 16-byte chunks and groups, or the
// packed size overflows 64 bits (q_bytes() and bytes() are then safe to compute).
PackedLayout packed_layout(Format f, int64_t N, int64_t K);

struct PackedWeights {
  PackedLayout layout;
  device::Buffer q, scales;
};

// Throws Error when the source's row stride is under K, or when its last element, (N - 1) * ld_src + K - 1, lies past
// what 64-bit byte offsets reach: no buffer that size exists, and an index computed from it would wrap.
void require_source(DType src_type, int64_t N, int64_t K, int64_t ld_src);

// src: N rows of K weights of type src_type with a row stride of ld_src elements (a problem's B). Asynchronous on
// `stream`. Throws Error for a bad shape or stride, and for N or K past the kernels' 32-bit rows and columns.
PackedWeights quantize(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f,
                       cudaStream_t stream);
// dst: N x K fp32, row stride K.
void dequantize(const PackedLayout& layout, const void* q, const void* scales, float* dst, cudaStream_t stream);
// The same rounded to bf16 or fp16 (nearest even; throws Error for fp8): the weights a 16-bit GEMM computes with.
void dequantize(const PackedLayout& layout, const void* q, const void* scales, void* dst, DType dst_type,
                cudaStream_t stream);

struct HostPacked {
  PackedLayout layout;
  std::vector<uint8_t> q, scales;
};

// The CPU reference of quantize() (src in host memory, same arguments) and dequantize().
HostPacked quantize_cpu(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f);
std::vector<float> dequantize_cpu(const HostPacked& w);

// What quantizing would not keep, counted on the host before it runs: weights that are not finite (a NaN comes back
// as 0 in Q8_0 and int4, an Inf turns its whole group or fp8 row into NaN) and finite weights too large for the format:
// a Q8_0 or int4 group whose fp16 scale overflows (|w| past about 8.3e6 or 4.6e5), an fp16 weight past 65504; and
// finite weights too small for it: a group whose fp16 scale falls under fp16's normal range (|w| under about 7.8e-3
// in Q8_0, 4.3e-4 in int4), where the scale keeps few bits or none and its weights come back coarse or as 0.
struct Hazards {
  int64_t nonfinite = 0;
  int64_t overflowed = 0;   // groups, or fp16 weights
  int64_t underflowed = 0;  // groups with a nonzero weight whose scale is under fp16's normal range
  std::string first;        // where the first hazard is: "row 3, column 17"
  bool none() const { return nonfinite == 0 && overflowed == 0 && underflowed == 0; }
};
Hazards find_hazards(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f);

// Host conversions, round to nearest even (e4m3 saturates to +-448, as the GPU's satfinite conversion does).
uint16_t float_to_fp16_bits(float v);
uint16_t float_to_bf16_bits(float v);
uint8_t float_to_e4m3_bits(float v);

}  // namespace tilewise::gemv
