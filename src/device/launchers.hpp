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
// The same with A or B given in fp32 (a32, b32: K-major, ld = p.lda or p.ldb; TN for A): the dequantized weights
// of a quantized arm.
void launch_reference_fp32(const Problem& p, const void* A, const void* B, bool a32, bool b32, float* ref,
                           cudaStream_t stream);
void launch_compare(DType out_dtype, int M, int N, const void* C, int64_t ldc, const float* ref,
                    kernels::ErrorSums* sums, cudaStream_t stream);
// dependent: launched as a programmatic dependent of the grid before it in the stream (kernels/pdl.h).
void launch_stream_read(const void* data, uint64_t bytes, unsigned* sink, int sm_count, cudaStream_t stream,
                        bool dependent);

}  // namespace tilewise::device
