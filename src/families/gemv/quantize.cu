// The GPU quantizer's host side: picks the kernel of kernels/quantize.cuh for the source type and the format. No fmt
// here: its headers do not compile under nvcc in C++20 mode.
#include <cstdint>
#include <string>
#include <type_traits>

#include "device/dtype_dispatch.cuh"
#include "families/gemv/quantize.hpp"
#include "kernels/quantize.cuh"

namespace tilewise::gemv {

namespace {

unsigned blocks_for(int64_t count, int threads) { return unsigned((count + threads - 1) / threads); }

// The kernels of kernels/quantize.cuh index rows and columns in 32 bits.
void require_32_bit_shape(const char* what, int64_t n, int64_t k) {
  constexpr int64_t kIntMax = 2147483647;
  if (n > kIntMax || k > kIntMax)
    throw Error(std::string(what) + ": weights of " + std::to_string(n) + " x " + std::to_string(k) +
                " are past the kernel's 32-bit rows and columns");
}

// Calls fn(std::integral_constant<int, code>) with the format's code in kernels/gemv.cuh.
template <typename Fn>
void dispatch_format(Format f, Fn&& fn) {
  using namespace kernels::gemv;
  switch (f) {
    case Format::bf16: return fn(std::integral_constant<int, w_bf16>{});
    case Format::fp16: return fn(std::integral_constant<int, w_fp16>{});
    case Format::q8_0: return fn(std::integral_constant<int, w_q8_0>{});
    case Format::int4_g32: return fn(std::integral_constant<int, w_int4_g32>{});
    case Format::int4_g128: return fn(std::integral_constant<int, w_int4_g128>{});
    case Format::fp8: return fn(std::integral_constant<int, w_fp8>{});
  }
}

}  // namespace

PackedWeights quantize(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f,
                       cudaStream_t stream) {
  PackedWeights w{packed_layout(f, N, K), {}, {}};
  require_source(src_type, N, K, ld_src);
  require_32_bit_shape("quantize", N, K);
  const PackedLayout& l = w.layout;
  w.q = device::Buffer(size_t(l.q_bytes()));
  if (l.scale_bytes) w.scales = device::Buffer(size_t(l.scale_bytes));
  device::dispatch_dtype(src_type, [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src);
    const int n = int(N), k = int(K);
    dispatch_format(f, [&](auto format) {
      constexpr int WF = decltype(format)::value;
      if constexpr (WF == kernels::gemv::w_bf16 || WF == kernels::gemv::w_fp16) {
        using Out = std::conditional_t<WF == kernels::gemv::w_bf16, __nv_bfloat16, __half>;
        kernels::quant::convert_rows<<<blocks_for(N * K, 256), 256, 0, stream>>>(s, ld_src, n, k, w.q.as<Out>());
      } else if constexpr (WF == kernels::gemv::w_fp8) {
        kernels::quant::quantize_fp8_rows<<<unsigned(N), 256, 0, stream>>>(s, ld_src, k, w.q.as<unsigned char>(),
                                                                          l.row_bytes, w.scales.as<float>());
      } else {  // one thread a group
        constexpr int group = kernels::gemv::WeightFormat<WF>::group;
        kernels::quant::quantize_groups<T, WF><<<blocks_for(N * K / group, 128), 128, 0, stream>>>(
            s, ld_src, n, k, w.q.as<unsigned char>(), l.row_bytes, w.scales.as<unsigned short>());
      }
    });
  });
  TW_CUDA(cudaGetLastError());
  return w;
}

namespace {

void require_aligned(const void* p, size_t bytes, const char* what) {
  if (reinterpret_cast<uintptr_t>(p) % bytes != 0)
    throw Error(std::string("dequantize: ") + what + " is not " + std::to_string(bytes) + "-byte aligned");
}

// What the kernel reads and writes each value as: a misaligned pointer would fault the context, so it is an Error.
template <typename O>
void launch_dequantize(const PackedLayout& l, const void* q, const void* scales, O* dst, cudaStream_t stream) {
  require_32_bit_shape("dequantize", l.n, l.k);
  const bool sixteen_bit = l.format == Format::bf16 || l.format == Format::fp16;
  require_aligned(q, sixteen_bit ? 2 : 1, "q");
  if (l.scale_bytes) require_aligned(scales, l.format == Format::fp8 ? 4 : 2, "scales");
  require_aligned(dst, sizeof(O), "the output");
  const auto* qb = static_cast<const unsigned char*>(q);
  dispatch_format(l.format, [&](auto format) {
    kernels::quant::dequantize<decltype(format)::value, O><<<blocks_for(l.n * l.k / 8, 256), 256, 0, stream>>>(
        qb, l.row_bytes, scales, int(l.n), int(l.k), dst);
  });
  TW_CUDA(cudaGetLastError());
}

}  // namespace

void dequantize(const PackedLayout& l, const void* q, const void* scales, float* dst, cudaStream_t stream) {
  launch_dequantize(l, q, scales, dst, stream);
}

void dequantize(const PackedLayout& l, const void* q, const void* scales, void* dst, DType dst_type,
                cudaStream_t stream) {
  if (dst_type == DType::bf16) return launch_dequantize(l, q, scales, static_cast<__nv_bfloat16*>(dst), stream);
  if (dst_type == DType::fp16) return launch_dequantize(l, q, scales, static_cast<__half*>(dst), stream);
  throw Error("dequantize to a dtype writes bf16 or fp16 weights, not fp8 (fp32: the float* overload)");
}

}  // namespace tilewise::gemv
