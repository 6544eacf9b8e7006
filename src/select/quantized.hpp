#pragma once
// linear on packed weights (include/tilewise/quantized.hpp) as the C ABI calls it: the same call, telling which kernel
// it ran, so that tw_last_choice names it without deciding again.
#include "tilewise/quantized.hpp"

namespace tilewise::select {

// tilewise::linear, returning the kernel it ran.
LinearKernel run_linear(Context& ctx, const void* x, int64_t tokens, DType act, const PackedWeights& w, void* y,
                cudaStream_t stream);

}  // namespace tilewise::select
