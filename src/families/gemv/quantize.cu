// The GPU quantizer's host side: picks the kernel of kernels/quantize.cuh for the source type and the format. No fmt
// here: its headers do not compile under nvcc in C++20 mode.
#include <string>

#include "device/dtype_dispatch.cuh"
#include "families/gemv/quantize.hpp"
#include "kernels/quantize.cuh"

namespace tilewise::gemv {

namespace {

unsigned blocks_for(int64_t count, int threads) { return unsigned((count + threads - 1) / threads); }

}  // namespace

PackedWeights quantize(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f,
                       cudaStream_t stream) {
  PackedWeights w{packed_layout(f, N, K), {}, {}};
  if (ld_src < K) throw Error("weight row stride " + std::to_string(ld_src) + " is under K = " + std::to_string(K));
  const PackedLayout& l = w.layout;
  w.q = device::Buffer(size_t(l.q_bytes()));
  if (l.scale_bytes) w.scales = device::Buffer(size_t(l.scale_bytes));
  auto* q = w.q.as<unsigned char>();
  device::dispatch_dtype(src_type, [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src);
    const int n = int(N), k = int(K);
    switch (f) {
      case Format::bf16:
        kernels::quant::convert_rows<<<blocks_for(N * K, 256), 256, 0, stream>>>(s, ld_src, n, k, w.q.as<__nv_bfloat16>());
        break;
      case Format::fp16:
        kernels::quant::convert_rows<<<blocks_for(N * K, 256), 256, 0, stream>>>(s, ld_src, n, k, w.q.as<__half>());
        break;
      case Format::q8_0:
        kernels::quant::quantize_groups<T, kernels::gemv::w_q8_0><<<blocks_for(N * K / 32, 128), 128, 0, stream>>>(
            s, ld_src, n, k, q, l.row_bytes, w.scales.as<unsigned short>());
        break;
      case Format::int4_g32:
        kernels::quant::quantize_groups<T, kernels::gemv::w_int4_g32><<<blocks_for(N * K / 32, 128), 128, 0, stream>>>(
            s, ld_src, n, k, q, l.row_bytes, w.scales.as<unsigned short>());
        break;
      case Format::int4_g128:
        kernels::quant::quantize_groups<T, kernels::gemv::w_int4_g128><<<blocks_for(N * K / 128, 128), 128, 0, stream>>>(
            s, ld_src, n, k, q, l.row_bytes, w.scales.as<unsigned short>());
        break;
      case Format::fp8:
        kernels::quant::quantize_fp8_rows<<<unsigned(N), 256, 0, stream>>>(s, ld_src, k, q, l.row_bytes,
                                                                          w.scales.as<float>());
        break;
    }
  });
  TW_CUDA(cudaGetLastError());
  return w;
}

void dequantize(const PackedLayout& l, const void* q, const void* scales, float* dst, cudaStream_t stream) {
  const auto* qb = static_cast<const unsigned char*>(q);
  const unsigned grid = blocks_for(l.n * l.k, 256);
  const int n = int(l.n), k = int(l.k);
  switch (l.format) {
    case Format::bf16: kernels::quant::dequantize<kernels::gemv::w_bf16><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
    case Format::fp16: kernels::quant::dequantize<kernels::gemv::w_fp16><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
    case Format::q8_0: kernels::quant::dequantize<kernels::gemv::w_q8_0><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
    case Format::int4_g32: kernels::quant::dequantize<kernels::gemv::w_int4_g32><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
    case Format::int4_g128: kernels::quant::dequantize<kernels::gemv::w_int4_g128><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
    case Format::fp8: kernels::quant::dequantize<kernels::gemv::w_fp8><<<grid, 256, 0, stream>>>(qb, l.row_bytes, scales, n, k, dst); break;
  }
  TW_CUDA(cudaGetLastError());
}

}  // namespace tilewise::gemv
