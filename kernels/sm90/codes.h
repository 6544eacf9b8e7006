// The integer codes the sm90 GEMM kernel takes as template parameters, defined once for both sides: the kernel
// (kernels/sm90_gemm.cuh, compiled by NVRTC) compares against them, and the host's configuration enums
// (src/families/sm90/config.hpp) take their values from them.
#pragma once

namespace tilewise::kernels::sm90 {

// The input type (Input); fp8 multiplies into a bf16 output. kernels/sm90/wgmma.h is generated with the same values.
enum : int { input_bf16 = 0, input_fp16 = 1, input_fp8 = 2 };
// How the output tile leaves (Store): stored from registers; staged in shared memory and written by TMA; the same
// through a ring of two 64-column atoms per consumer; staged and copied out by the consumer threads.
enum : int { epilogue_direct = 0, epilogue_tma = 1, epilogue_tma_ring = 2, epilogue_staged = 3 };
// What wgmma's 64-row side reads (Weights): the operand as the problem stores it, through TMA; or packed Q8_0, int4
// or fp8 weights in the kernel's own order (sm90/packed.h), dequantized into registers. Valued as the decode GEMV's
// format codes (gemv_codes.h) for the same quantization.
enum : int { weights_as_input = 0, weights_q8_0 = 2, weights_int4_g32 = 3, weights_int4_g128 = 4, weights_fp8 = 5 };

}  // namespace tilewise::kernels::sm90
