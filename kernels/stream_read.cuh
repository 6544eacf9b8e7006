#pragma once
// Reads a buffer once with 16-byte loads, several in flight per thread, to measure the HBM read bandwidth the
// decode kernels are judged against, and a plain read of a decode arm's weight bytes (device/plain_read.hpp). The
// loaded words feed a value that is stored only if it hits an improbable pattern, so the compiler cannot drop the
// loads. Every step issues all of its loads before it uses any, the last one too (past the end they are predicated
// off): a buffer of a few loads a thread, a decode GEMV's 26 MB, keeps them all in flight at once. The loads are the
// decode kernels' read-only, no-L1 ones (weight_load.h); plain loads measured the same (470 MB in 104.68 us both
// ways: results/decode-gemv-cold-11.json and -12.json).
//
// Launched as a programmatic dependent (pdl.h; the plain read does, the bandwidth measurement does not), it lets the
// next grid launch at once and reads nothing before the grid ahead of it is done: the launch overlap the decode arms
// with pdl=1 have, and no more.
#include "pdl.h"
#include "weight_load.h"

namespace tilewise::kernels {

constexpr int stream_read_unroll = 4;

__global__ void stream_read(const uint4* data, unsigned long long count, unsigned* sink) {
  launch_dependents();
  wait_for_prerequisites();
  const unsigned long long stride = (unsigned long long)(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)(blockDim.x) + threadIdx.x; i < count;
       i += stream_read_unroll * stride) {
    uint4 v[stream_read_unroll];
#pragma unroll
    for (int u = 0; u < stream_read_unroll; ++u)
      v[u] = i + u * stride < count ? gemv::load_weights<gemv::hint_no_allocate>(
                                          reinterpret_cast<const unsigned char*>(data + i + u * stride), 0)
                                    : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < stream_read_unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

}  // namespace tilewise::kernels
