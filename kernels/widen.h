// Byte-sized weights widened to pairs of 16-bit values, exactly: e4m3 (fp8) and signed bytes (Q8_0's q). The decode
// GEMV's mma engine (gemv_mma.cuh) and the sm90 kernel's packed weights (sm90/packed.h) take them from here.
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

// Two signed bytes (bytes e and e + 1 of `w`) as fp32, exactly: 0x4B000000 over (q + 128) is 2^23 + q + 128.
__device__ __forceinline__ float2 int8_pair_to_float2(unsigned w, int e) {
  const unsigned biased = w ^ 0x80808080u;
  return make_float2(__uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7540 + e)) - 8388736.0f,
                     __uint_as_float(__byte_perm(biased, 0x4B000000u, 0x7540 + e + 1)) - 8388736.0f);
}

// The same as bf16 (Bf16) or fp16, exactly, element e low. fp16: 0x64 over (q + 128) is 1024 + q + 128, less 1152.
// bf16 holds no 256 consecutive integers under one exponent, so through fp32.
template <bool Bf16>
__device__ __forceinline__ unsigned int8_pair_to_16bit(unsigned w, int e) {
  if constexpr (!Bf16) {
    const unsigned bits = __byte_perm(w ^ 0x80808080u, 0x64646464u, e == 0 ? 0x4140 : 0x4342);
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&bits), __floats2half2_rn(1152.0f, 1152.0f));
    return *reinterpret_cast<const unsigned*>(&v);
  } else {
    const float2 q = int8_pair_to_float2(w, e);
    const __nv_bfloat162 v = __floats2bfloat162_rn(q.x, q.y);
    return *reinterpret_cast<const unsigned*>(&v);
  }
}

}  // namespace tilewise::kernels
