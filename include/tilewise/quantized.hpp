#pragma once
// nn.Linear on packed quantized weights: the decode GEMV family's formats (defined bit by bit in
// kernels/quantize.cuh), quantized on the GPU or by the CPU reference (the same bits), and y = x W^T with them.
//   q8_0      int8 values as ggml's Q8_0, an fp16 scale per 32 weights along K
//   int4_g32  int4, symmetric with a zero point of 8, an fp16 scale per 32 weights along K
//   int4_g128 the same with a scale per 128
//   fp8       e4m3 values, an fp32 scale per output channel (row)
#include <cuda_runtime.h>

#include <cstdint>
#include <string_view>

#include "tilewise/export.hpp"
#include "tilewise/context.hpp"
#include "tilewise/problem.hpp"

namespace tilewise {

enum class WeightFormat { q8_0 = 2, int4_g32 = 3, int4_g128 = 4, fp8 = 5 };

TILEWISE_API std::string_view to_string(WeightFormat f);            // "q8_0", "int4g32", "int4g128", "fp8"
TILEWISE_API WeightFormat parse_weight_format(std::string_view s);  // throws Error naming the text and the known names

// Where a format puts W[F][K]: F rows of quantized values row_bytes apart (whole 16-byte chunks), then the scales.
struct PackedShape {
  WeightFormat format = WeightFormat::q8_0;
  int64_t out_features = 0, in_features = 0;  // F and K
  int64_t row_bytes = 0;
  int64_t scale_bytes = 0;  // q8_0, int4: fp16 [F][K / group]; fp8: fp32 [F]
  int64_t q_bytes() const { return out_features * row_bytes; }
};
// Throws Error naming the rule when F or K is not positive or K does not fill whole chunks and groups.
TILEWISE_API PackedShape packed_shape(WeightFormat f, int64_t out_features, int64_t in_features);

struct PackedWeights {
  PackedShape shape;
  // The weights in rows of K (quantize's order): what the gemv reads at 1..16 tokens.
  const void* q = nullptr;       // shape.q_bytes() bytes, 16-byte aligned
  const void* scales = nullptr;  // shape.scale_bytes bytes
  // The same weights in the tensor-core kernel's order (pack_for_tensor_cores), the same sizes, 16-byte aligned. With
  // both orders linear serves more than 16 tokens, and runs the sm90 kernel at fewer where it is faster. Alone (q and
  // scales null) they serve every token count from one copy of the weights (linear_kernel says which kernel).
  const void* q_mma = nullptr;
  const void* scales_mma = nullptr;
};

// W[F][K] (bf16 or fp16, rows `ld` elements apart) packed into device memory q (shape.q_bytes()) and scales
// (shape.scale_bytes) on `stream`. For load time: it allocates and synchronizes the stream. Throws Error.
TILEWISE_API void quantize(const void* w, DType dtype, int64_t ld, const PackedShape& shape, void* q, void* scales,
              cudaStream_t stream);
// The CPU reference of quantize (every pointer in host memory): the same bits.
TILEWISE_API void quantize_host(const void* w, DType dtype, int64_t ld, const PackedShape& shape, void* q, void* scales);
// The weights the kernels compute with, as fp32 [F][K]: on the GPU (asynchronous on `stream`) or in host memory.
TILEWISE_API void dequantize(const PackedWeights& w, float* out, cudaStream_t stream);
TILEWISE_API void dequantize_host(const PackedWeights& w, float* out);
// The same rounded to bf16 or fp16 (`out_dtype`; nearest even) on the GPU: the weights gemm computes with where linear
// does not serve the token count. Throws Error for fp8 or a null pointer.
TILEWISE_API void dequantize(const PackedWeights& w, void* out, DType out_dtype, cudaStream_t stream);

// w.q and w.scales in the order the Hopper tensor-core kernel reads them ("mma order", version 1:
// kernels/sm90/packed.h) into device memory q_mma (shape.q_bytes()) and scales_mma (shape.scale_bytes), asynchronous
// on `stream`. Throws Unsupported for F or K not in whole blocks of 64; Error for a
// null pointer, outputs not 16-byte aligned (scales not 2-byte aligned), or an output overlapping another buffer.
TILEWISE_API void pack_for_tensor_cores(const PackedWeights& w, void* q_mma, void* scales_mma, cudaStream_t stream);

// The most tokens linear gives the gemv family (below); from 8 some go to the sm90 kernel (linear_kernel).
inline constexpr int64_t kGemvMaxTokens = 16;

// The kernels linear runs on packed weights: the gemv on q and scales (rows of K), the gemv on the tensor-core copy
// (int4 at 1..8 tokens), and the sm90 kernel on the tensor-core copy (dequantized in wgmma's registers).
enum class LinearKernel { gemv = 0, gemv_mma_order = 1, sm90 = 2 };
TILEWISE_API std::string_view to_string(LinearKernel k);  // "gemv", "gemv mma-order", "sm90"

// Which kernel linear runs on `w` for `tokens`. Past 16 tokens the sm90 kernel (linear throws Unsupported without
// the tensor-core copy). At 1..16 with q and scales: the gemv on them, or the sm90 kernel where the copy is given too
// and an H200's measurement put it ahead for the format, token count, K and F (on another GPU, the gemv). With the
// copy alone: int4 (g128, g32) at 1..8 tokens the gemv on the copy where x fits its shared memory (at 8 tokens K up
// to 13,952 for g128, 14,016 for g32) and its CTAs keep an SM busy (an H100 measured it ahead of the sm90 kernel
// there), the rest the sm90 kernel.
TILEWISE_API LinearKernel linear_kernel(const Context& ctx, const PackedWeights& w, int64_t tokens);

// y[tokens][F] = x[tokens][K] W^T for bf16 or fp16 x and y (contiguous rows), on `stream`, with the kernel
// linear_kernel names (each built on first use with its default configuration for the format, shape and token count,
// and kept by the context; the sm90 kernel's per stream, its stream-K partials in the stream's scratch). Past 16 tokens
// without the tensor-core copy it throws Unsupported: dequantize to x's dtype and run gemm on linear_problem() then.
// Throws Error, before any launch, for a null or misaligned pointer, or only one of q and scales or of q_mma and
// scales_mma.
TILEWISE_API void linear(Context& ctx, const void* x, int64_t tokens, DType act, const PackedWeights& w, void* y,
            cudaStream_t stream);

}  // namespace tilewise
