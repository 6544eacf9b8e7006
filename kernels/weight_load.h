#pragma once
// The loads a weight stream is read with: 16 bytes (or 8, or 2) under a cache policy, the cache hint being part of
// the decode kernels' configuration (src/families/gemv). Shared by the decode kernels and the plain read of their
// bytes (stream_read.cuh), so that read streams the way they do.
#include "gemv_codes.h"

namespace tilewise::kernels::gemv {

// 16 bytes of weights under the stream's cache policy; BYTES = 8 loads 8 (into x and y; z and w are zero), BYTES = 2
// one 16-bit weight (into the low half of x).
template <int HINT, int BYTES = 16>
__device__ __forceinline__ uint4 load_weights(const unsigned char* p, unsigned long long policy) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if constexpr (BYTES == 2) {
    unsigned short h;
    if constexpr (HINT == hint_none) {
      h = *reinterpret_cast<const unsigned short*>(p);
    } else if constexpr (HINT == hint_nc) {
      asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(h) : "l"(p));
    } else if constexpr (HINT == hint_no_allocate) {
      asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(h) : "l"(p));
    } else if constexpr (HINT == hint_evict_first) {
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(h) : "l"(p), "l"(policy));
    } else {
      asm volatile("ld.global.nc.L1::no_allocate.L2::256B.u16 %0, [%1];" : "=h"(h) : "l"(p));
    }
    v.x = h;
  } else if constexpr (BYTES == 8) {
    if constexpr (HINT == hint_none) {
      const uint2 h = *reinterpret_cast<const uint2*>(p);
      v.x = h.x, v.y = h.y;
    } else if constexpr (HINT == hint_nc) {
      asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    } else if constexpr (HINT == hint_no_allocate) {
      asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    } else if constexpr (HINT == hint_evict_first) {
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
                   : "=r"(v.x), "=r"(v.y) : "l"(p), "l"(policy));
    } else {
      asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    }
  } else if constexpr (HINT == hint_none) {
    v = *reinterpret_cast<const uint4*>(p);
  } else if constexpr (HINT == hint_nc) {
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if constexpr (HINT == hint_no_allocate) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else if constexpr (HINT == hint_evict_first) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  }
  return v;
}

}  // namespace tilewise::kernels::gemv
