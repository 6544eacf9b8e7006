#pragma once
// Host entry points of the device layer's own kernels (kernels/*.cuh), compiled once by nvcc in launchers.cu.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"

namespace tilewise::kernels {
struct ErrorSums;
}

namespace tilewise::device {

void launch_fill(DType dtype, void* data, uint64_t count, uint64_t seed, cudaStream_t stream);
// ref (fp32, M x N, column-major with ld M) = op(A) op(B) for the problem's layout and strides.
void launch_reference(const Problem& p, const void* A, const void* B, float* ref, cudaStream_t stream);
// The same with one operand given in fp32, A where `fp32_a` (TN, ld = p.lda), else B (ld = p.ldb), both K-major:
// the dequantized weights of a quantized arm.
void launch_reference_fp32(const Problem& p, const void* A, const void* B, bool fp32_a, float* ref,
                           cudaStream_t stream);
void launch_compare(DType out_dtype, int M, int N, const void* C, int64_t ldc, const float* ref,
                    kernels::ErrorSums* sums, cudaStream_t stream);
// dependent: launched as a programmatic dependent of the grid before it in the stream (kernels/pdl.h).
void launch_stream_read(const void* data, uint64_t bytes, unsigned* sink, int sm_count, cudaStream_t stream,
                        bool dependent);

}  // namespace tilewise::device
