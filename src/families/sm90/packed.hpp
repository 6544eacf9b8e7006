#pragma once
// Packed int4, Q8_0 and fp8 weights in the order the sm90 kernel reads them (kernels/sm90/packed.h): the decode GEMV's packing
// (families/gemv/quantize.hpp: the same values and scales, rows of K) reordered into 64 x 64 blocks of wgmma A
// fragments. The GPU reorder and its CPU reference write the same bits; the byte counts are the row order's.
#include <optional>
#include <string>

#include "families/gemv/quantize.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"

namespace tilewise::sm90 {

// The kernel's Weights for a packed format; throws Unsupported naming the format where the kernel reads none
// (16-bit formats).
Weights packed_weights(gemv::Format f);
// Why weights of `layout` cannot be put in the kernel's order (a format it does not read, or N or K not in whole
// blocks of 64), or nothing.
std::optional<std::string> kernel_order_unsupported(const gemv::PackedLayout& layout);
// The same values and scales in the kernel's order: on the GPU, asynchronous on `stream`, and on the CPU. Throw
// Unsupported where kernel_order_unsupported says why.
gemv::PackedWeights to_kernel_order(const gemv::PackedWeights& rows, cudaStream_t stream);
// The same into caller-owned buffers of layout.q_bytes() and layout.scale_bytes (device memory).
void to_kernel_order(const gemv::PackedLayout& layout, const void* q, const void* scales, void* q_out, void* scales_out,
                     cudaStream_t stream);
gemv::HostPacked to_kernel_order_cpu(const gemv::HostPacked& rows);

// The configuration packed weights of format `w` run p with: B packed (tokens as M), or A packed (nn.Linear: M = F,
// N = tokens) when `weights_as_a`. Throws Unsupported with the last reason where nothing fits.
Config packed_rule(const Problem& p, const Limits& limits, Weights w, bool weights_as_a);

}  // namespace tilewise::sm90
