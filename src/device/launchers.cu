#include "device/launchers.hpp"

#include <type_traits>

#include "kernels/fill.cuh"
#include "kernels/reference_gemm.cuh"
#include "kernels/stream_read.cuh"
#include "device/cuda.hpp"
#include "device/dtype_dispatch.cuh"

namespace tilewise::device {

namespace {

int grid_for(uint64_t count, int threads) {
  const uint64_t blocks = (count + threads - 1) / threads;
  return int(blocks < 65535 * 16 ? blocks : 65535 * 16);
}

}  // namespace

void launch_fill(DType dtype, void* data, uint64_t count, uint64_t seed, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    kernels::fill_uniform<T><<<grid_for(count, 256), 256, 0, stream>>>(static_cast<T*>(data), count, seed);
  });
  TW_CUDA(cudaGetLastError());
}

namespace {

// A and B each in the problem's element type, or in fp32 (dequantized weights).
template <bool FloatA, bool FloatB>
void launch_reference_with(const Problem& p, const void* A, const void* B, float* ref, cudaStream_t stream) {
  using kernels::reference::tile;
  const long long a_i = p.layout == Layout::TN ? p.lda : 1;
  const long long a_k = p.layout == Layout::TN ? 1 : p.lda;
  const dim3 grid(unsigned((p.M + tile - 1) / tile), unsigned((p.N + tile - 1) / tile));
  dispatch_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    using TA = std::conditional_t<FloatA, float, T>;
    using TB = std::conditional_t<FloatB, float, T>;
    kernels::reference_gemm<TA, TB><<<grid, kernels::reference::threads, 0, stream>>>(
        int(p.M), int(p.N), int(p.K), static_cast<const TA*>(A), a_i, a_k, static_cast<const TB*>(B), p.ldb, ref);
  });
  TW_CUDA(cudaGetLastError());
}

}  // namespace

void launch_reference(const Problem& p, const void* A, const void* B, float* ref, cudaStream_t stream) {
  launch_reference_with<false, false>(p, A, B, ref, stream);
}

void launch_reference_fp32(const Problem& p, const void* A, const void* B, bool fp32_a, float* ref,
                           cudaStream_t stream) {
  if (fp32_a) launch_reference_with<true, false>(p, A, B, ref, stream);
  else launch_reference_with<false, true>(p, A, B, ref, stream);
}

void launch_compare(DType out_dtype, int M, int N, const void* C, int64_t ldc, const float* ref,
                    kernels::ErrorSums* sums, cudaStream_t stream) {
  TW_CUDA(cudaMemsetAsync(sums, 0, sizeof(kernels::ErrorSums), stream));
  const int grid = grid_for(uint64_t(M) * N, 256) < 4096 ? grid_for(uint64_t(M) * N, 256) : 4096;
  dispatch_dtype(out_dtype, [&](auto tag) {
    using T = decltype(tag);
    kernels::compare_to_reference<T><<<grid, 256, 0, stream>>>(M, N, static_cast<const T*>(C), ldc, ref, sums);
  });
  TW_CUDA(cudaGetLastError());
}

void launch_stream_read(const void* data, uint64_t bytes, unsigned* sink, int sm_count, cudaStream_t stream,
                        bool dependent) {
  cudaLaunchConfig_t cfg{};
  // Four 512-thread blocks fill an SM's 2048 threads; eight per SM leave the scheduler a second wave to hide tails.
  cfg.gridDim = dim3(unsigned(sm_count) * 8);
  cfg.blockDim = dim3(512);
  cfg.stream = stream;
  cudaLaunchAttribute programmatic{};
  programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = dependent ? &programmatic : nullptr;
  cfg.numAttrs = dependent ? 1 : 0;
  TW_CUDA(cudaLaunchKernelEx(&cfg, kernels::stream_read, static_cast<const uint4*>(data),
                             static_cast<unsigned long long>(bytes / 16), sink));
}

}  // namespace tilewise::device
