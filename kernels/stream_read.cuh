#pragma once
// Reads a buffer once with 16-byte loads, several in flight per thread, to measure the HBM read bandwidth the
// decode kernels are judged against. The loaded words feed a value that is stored only if it hits an
// improbable pattern, so the compiler cannot drop the loads.
namespace tilewise::kernels {

constexpr int stream_read_unroll = 4;

__global__ void stream_read(const uint4* data, unsigned long long count, unsigned* sink) {
  const unsigned long long stride = (unsigned long long)(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  unsigned long long i = blockIdx.x * (unsigned long long)(blockDim.x) + threadIdx.x;
  for (; i + (stream_read_unroll - 1) * stride < count; i += stream_read_unroll * stride) {
    uint4 v[stream_read_unroll];
#pragma unroll
    for (int u = 0; u < stream_read_unroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < stream_read_unroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

}  // namespace tilewise::kernels
