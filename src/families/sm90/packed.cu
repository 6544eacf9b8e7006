// The GPU reorder's host side (kernels/sm90/packed_order.cuh). No fmt here: its headers do not compile under nvcc in
// C++20 mode.
#include "families/sm90/packed.hpp"
#include "kernels/sm90/packed_order.cuh"

namespace tilewise::sm90 {

gemv::PackedWeights to_kernel_order(const gemv::PackedWeights& rows, cudaStream_t stream) {
  const gemv::PackedLayout& l = rows.layout;
  if (auto why = kernel_order_unsupported(l)) throw Unsupported(*why);
  gemv::PackedWeights out{l, device::Buffer(size_t(l.q_bytes())), device::Buffer(size_t(l.scale_bytes))};
  const long long words = l.n * l.k / 8;
  const int groups = int(l.k / gemv::group_size(l.format));
  const long long scales = l.n * groups;
  constexpr int kThreads = 256;
  kernels::sm90::reorder_packed_q<<<unsigned((words + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      rows.q.as<unsigned char>(), l.row_bytes, int(l.k), words, out.q.as<unsigned int>());
  kernels::sm90::reorder_packed_scales<<<unsigned((scales + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      rows.scales.as<unsigned short>(), groups, scales, out.scales.as<unsigned short>());
  TW_CUDA(cudaGetLastError());
  return out;
}

}  // namespace tilewise::sm90
