#pragma once
// The weights an arm on quantized weights computes with (the gemv family's quantized arms, sm90's packed arms): B of
// each operand set quantized on the GPU, optionally put in a kernel's own order, as many copies as a cold run needs
// for the arm's own rotation to cover 4x the L2 (its weights are smaller than B), and set 0's weights dequantized,
// which the harness judges the arm against (otherwise the quantization error, not the kernel, would fail the gate).
#include <functional>
#include <vector>

#include "families/arm.hpp"
#include "families/gemv/quantize.hpp"

namespace tilewise::gemv {

struct QuantizedCopies {
  std::vector<PackedWeights> copies;  // copy i holds B of operand set i % sets, at its own address
  device::Buffer dequantized;         // N x K fp32, row stride K: copy 0's weights
  int64_t weight_bytes = 0;           // what one launch streams
  int64_t working_set = 0;            // the copies and the operand sets' A and C
};

// A copy's bytes in another order, on the stream (e.g. sm90::to_kernel_order).
using Reorder = std::function<PackedWeights(const PackedWeights&, cudaStream_t)>;

// The weights of p (tokens as M: N rows of K, row stride ldb) in `format`, read from B of `wb`'s operand sets, or
// from A with `weights_in_a` (nn.Linear's orientation, where p is the problem with its operands swapped);
// synchronizes the stream. Throws Error for a shape the format cannot take.
QuantizedCopies quantize_copies(const families::Workbench& wb, const Problem& p, Format format,
                                const Reorder& reorder = {}, bool weights_in_a = false);

}  // namespace tilewise::gemv
