// The GPU reorder's host side (kernels/sm90/packed_order.cuh). No fmt here: its headers do not compile under nvcc in
// C++20 mode.
#include "families/sm90/packed.hpp"
#include "kernels/sm90/packed_order.cuh"

namespace tilewise::sm90 {

void to_kernel_order(const gemv::PackedLayout& l, const void* q, const void* scales, void* q_out, void* scales_out,
                     cudaStream_t stream) {
  if (auto why = kernel_order_unsupported(l)) throw Unsupported(*why);
  if (!q || !scales || !q_out || !scales_out) throw Error("the kernel order needs q, scales and both outputs");
  constexpr int kThreads = 256;
  const auto blocks = [](long long n) { return unsigned((n + kThreads - 1) / kThreads); };
  const auto* rows = static_cast<const unsigned char*>(q);
  auto* out = static_cast<unsigned int*>(q_out);
  if (kernels::sm90::packed_bytes(int(packed_weights(l.format)))) {  // a byte a value (Q8_0, fp8)
    const long long words = l.n * l.k / 4;
    kernels::sm90::reorder_packed_byte_q<<<blocks(words), kThreads, 0, stream>>>(rows, l.row_bytes, int(l.k), words, out);
  } else {
    const long long words = l.n * l.k / 8;
    kernels::sm90::reorder_packed_q<<<blocks(words), kThreads, 0, stream>>>(rows, l.row_bytes, int(l.k), words, out);
  }
  if (l.format == gemv::Format::fp8) {  // the row scales keep their order
    TW_CUDA(cudaMemcpyAsync(scales_out, scales, size_t(l.scale_bytes), cudaMemcpyDeviceToDevice, stream));
  } else {
    const int groups = int(l.k / gemv::group_size(l.format));
    const long long count = l.n * groups;
    kernels::sm90::reorder_packed_scales<<<blocks(count), kThreads, 0, stream>>>(
        static_cast<const unsigned short*>(scales), groups, count, static_cast<unsigned short*>(scales_out));
  }
  TW_CUDA(cudaGetLastError());
}

gemv::PackedWeights to_kernel_order(const gemv::PackedWeights& rows, cudaStream_t stream) {
  const gemv::PackedLayout& l = rows.layout;
  if (auto why = kernel_order_unsupported(l)) throw Unsupported(*why);
  gemv::PackedWeights out{l, device::Buffer(size_t(l.q_bytes())), device::Buffer(size_t(l.scale_bytes))};
  to_kernel_order(l, rows.q.get(), rows.scales.get(), out.q.get(), out.scales.get(), stream);
  return out;
}

}  // namespace tilewise::sm90
