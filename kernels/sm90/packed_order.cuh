#pragma once
// Packed weights from the decode GEMV's row order (kernels/quantize.cuh) into the sm90 kernel's (sm90/packed.h): one
// thread per 32-bit word of q, then one per group scale (fp8's row scales keep their order). Compiled by nvcc into the
// tool (src/families/sm90/packed.cu).
#include "sm90/packed_order.h"

namespace tilewise::kernels::sm90 {

__global__ void reorder_packed_q(const unsigned char* rows, long long row_bytes, int K, long long words,
                                 unsigned int* out) {
  const long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (w >= words) return;
  out[w] = packed_word(w, K, [&](long long n, int k) { return (rows[n * row_bytes + k / 2] >> (4 * (k % 2))) & 0xF; });
}

__global__ void reorder_packed_byte_q(const unsigned char* rows, long long row_bytes, int K, long long words,
                                     unsigned int* out) {
  const long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (w >= words) return;
  out[w] = packed_byte_word(w, K, [&](long long n, int k) { return rows[n * row_bytes + k]; });
}

__global__ void reorder_packed_scales(const unsigned short* rows, int groups, long long count, unsigned short* out) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < count) out[i] = rows[packed_scale_source(i, groups)];
}

}  // namespace tilewise::kernels::sm90
