// The integer codes the decode GEMV kernels take as template parameters, defined once for both sides: the kernels
// (compiled by NVRTC from this folder) compare against them, and the host's configuration enums
// (src/families/gemv/config.hpp) take their values from them, so a kernel name the host writes always means what it says.
#pragma once

namespace tilewise::kernels::gemv {

// Weight formats (WF).
enum : int { w_bf16 = 0, w_fp16 = 1, w_q8_0 = 2, w_int4_g32 = 3, w_int4_g128 = 4, w_fp8 = 5 };
// Activation types (XT); the output is fp16 for fp16 activations, bf16 otherwise.
enum : int { x_bf16 = 0, x_fp16 = 1, x_fp8 = 2 };
// x's layout (XL): rows of K (TN) or columns of M tokens (NN).
enum : int { x_k_major = 0, x_m_major = 1 };
// Cache policy of the weight stream (HINT).
enum : int { hint_none = 0, hint_nc = 1, hint_no_allocate = 2, hint_evict_first = 3, hint_prefetch_256 = 4 };

}  // namespace tilewise::kernels::gemv
