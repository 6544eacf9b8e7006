// Two e4m3 values as two values of a 16-bit type, exactly: the decode GEMV's mma engine (gemv_mma.cuh) and the sm90
// kernel's packed fp8 weights (sm90/packed.h) widen their weights with it.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace tilewise::kernels {

// `w`: two e4m3 values, element 0 in the low byte; out: the pair as bf16 (Bf16) or fp16, element 0 low.
template <bool Bf16>
__device__ __forceinline__ unsigned e4m3_pair_to_16bit(unsigned short w) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(w), __NV_E4M3);
  unsigned bits = (unsigned(h.y) << 16) | h.x;
  if constexpr (Bf16) {
    // An fp16 holding an e4m3 value is normal (or zero) with 3 mantissa bits: moving its exponent and mantissa down
    // 3 bits makes the bf16 of the same value scaled by 2^-112, and a multiply by 2^112 (bf16 0x7780) restores it.
    const unsigned shifted = (bits & 0x80008000u) | ((bits >> 3) & 0x0FFF0FFFu);
    const __nv_bfloat162 v = __hmul2(*reinterpret_cast<const __nv_bfloat162*>(&shifted),
                                     __floats2bfloat162_rn(0x1p112f, 0x1p112f));
    bits = *reinterpret_cast<const unsigned*>(&v);
  }
  return bits;
}

}  // namespace tilewise::kernels
