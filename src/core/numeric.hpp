#pragma once
// Host-side decoding of the element types, for the fp64 check. Written from the formats' definitions (IEEE
// binary16, bfloat16 = the top half of binary32, OCP fp8 E4M3 with bias 7, no infinities, S.1111.111 = NaN).
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/problem.hpp"

namespace tilewise {

inline double bf16_to_double(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

inline double fp16_to_double(uint16_t bits) {
  const int sign = bits >> 15, exp = (bits >> 10) & 0x1F, mant = bits & 0x3FF;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

inline double e4m3_to_double(uint8_t bits) {
  const int sign = bits >> 7, exp = (bits >> 3) & 0xF, mant = bits & 0x7;
  double v;
  if (exp == 15 && mant == 7) v = NAN;
  else if (exp == 0) v = std::ldexp(mant, -9);
  else v = std::ldexp(8 + mant, exp - 10);
  return sign ? -v : v;
}

// The value of element `index` of a buffer holding `dtype` elements.
inline double element_to_double(DType dtype, const void* data, int64_t index) {
  switch (dtype) {
    case DType::bf16: return bf16_to_double(static_cast<const uint16_t*>(data)[index]);
    case DType::fp16: return fp16_to_double(static_cast<const uint16_t*>(data)[index]);
    case DType::fp8_e4m3: return e4m3_to_double(static_cast<const uint8_t*>(data)[index]);
  }
  return NAN;
}

}  // namespace tilewise
