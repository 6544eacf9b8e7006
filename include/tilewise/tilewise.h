/* tilewise's C ABI: the library (include/tilewise/tilewise.hpp) for callers that cannot link C++, such as the Python
 * package (python/tilewise/, over ctypes). Every function returns TW_OK, or TW_ERROR / TW_UNSUPPORTED with the message
 * in tw_last_error() of the calling thread; none throws. Streams are cudaStream_t passed as void* (0: the legacy
 * default stream). Pointers are device pointers unless a function says host. Calls on one context from several
 * threads are serialized by a lock the context holds. */
#ifndef TILEWISE_TILEWISE_H
#define TILEWISE_TILEWISE_H

#include <stddef.h>
#include <stdint.h>

#define TW_C_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

#define TW_ABI_VERSION 3

enum tw_status { TW_OK = 0, TW_ERROR = 1, TW_UNSUPPORTED = 2 };
/* tilewise::DType, Layout and WeightFormat. */
enum tw_dtype { TW_BF16 = 0, TW_FP16 = 1, TW_FP8_E4M3 = 2 };
enum tw_layout { TW_TN = 0, TW_NN = 1 };
enum tw_format { TW_Q8_0 = 2, TW_INT4_G32 = 3, TW_INT4_G128 = 4, TW_FP8 = 5 };

typedef struct tw_context tw_context;

/* C = op(A) op(B), column-major as in cuBLAS (include/tilewise/problem.hpp). */
typedef struct tw_problem {
  int64_t M, N, K;
  int32_t dtype;  /* tw_dtype */
  int32_t layout; /* tw_layout */
  int64_t lda, ldb, ldc;
} tw_problem;

TW_C_API int tw_abi_version(void);
/* The message of the calling thread's last failed call ("" when none failed). */
TW_C_API const char* tw_last_error(void);
/* What the calling thread's last gemm or linear ran: "family config (source)"; "not known: ..." once any context has
 * been destroyed since that call. */
TW_C_API const char* tw_last_choice(void);

/* A context on CUDA device `device` with the library's default options (the shipped database, TILEWISE_TUNE,
 * TILEWISE_DB) and, when `database` is not NULL, that tuned database file searched first. Every call on a context
 * makes its device current for the call and the caller's current again before it returns. */
TW_C_API int tw_context_create(int device, const char* database, tw_context** out);
TW_C_API void tw_context_destroy(tw_context* ctx);

TW_C_API int tw_gemm(tw_context* ctx, const tw_problem* p, const void* A, const void* B, void* C, void* stream);
/* nn.Linear's y[tokens][F] = x[tokens][K] w[F][K]^T, every tensor contiguous: gemm on tilewise::linear_problem. */
TW_C_API int tw_linear(tw_context* ctx, int32_t dtype, int64_t tokens, int64_t out_features, int64_t in_features,
                       const void* x, const void* w, void* y, void* stream);

/* The bytes between rows of a format's packed values and of its scales, for w[F][K]. */
TW_C_API int tw_packed_shape(int32_t format, int64_t out_features, int64_t in_features, int64_t* row_bytes,
                             int64_t* scale_bytes);
/* w[F][K] (bf16 or fp16, rows ld elements apart) packed into q (F * row_bytes) and scales (scale_bytes): on the GPU
 * (allocates and synchronizes `stream`: for load time), or with every pointer in host memory (the CPU reference, the
 * same bits). */
TW_C_API int tw_quantize(const void* w, int32_t dtype, int64_t ld, int32_t format, int64_t out_features,
                         int64_t in_features, void* q, void* scales, void* stream);
TW_C_API int tw_quantize_host(const void* w, int32_t dtype, int64_t ld, int32_t format, int64_t out_features,
                              int64_t in_features, void* q, void* scales);
/* The weights the kernels compute with, fp32 [F][K], from host memory into host memory. */
TW_C_API int tw_dequantize_host(int32_t format, int64_t out_features, int64_t in_features, const void* q,
                                const void* scales, float* out);
/* The same on the GPU, rounded to `out_dtype` (bf16 or fp16), asynchronous on `stream`, on the calling thread's
 * current device (every pointer and the stream on it): the 16-bit weights tw_linear computes with where
 * tw_linear_packed does not serve the token count. */
TW_C_API int tw_dequantize(int32_t format, int64_t out_features, int64_t in_features, const void* q,
                           const void* scales, void* out, int32_t out_dtype, void* stream);
/* y[tokens][F] = x[tokens][K] W^T on packed weights, x and y bf16 or fp16 (`dtype`): 1..16 tokens (more:
 * TW_UNSUPPORTED; dequantize and run tw_linear). */
TW_C_API int tw_linear_packed(tw_context* ctx, int32_t dtype, int64_t tokens, int32_t format, int64_t out_features,
                              int64_t in_features, const void* x, const void* q, const void* scales, void* y,
                              void* stream);
/* q and scales (any packed format) in the order the Hopper tensor-core kernel reads them, into q_mma and scales_mma
 * of the same sizes, asynchronous on `stream` (TW_UNSUPPORTED for F or K not in whole blocks of 64). */
TW_C_API int tw_pack_for_tensor_cores(int32_t format, int64_t out_features, int64_t in_features, const void* q,
                                      const void* scales, void* q_mma, void* scales_mma, void* stream);
/* tw_linear_packed with the weights' tensor-core copy as well: past 16 tokens the sm90 kernel reads q_mma and
 * scales_mma; at 1..16 the gemv reads q and scales, or the sm90 kernel the copy where it measured faster. q and
 * scales may be null: the copy alone serves every token count (int4 at 1..16 tokens through the gemv on the copy).
 * The C++ API's linear_kernel says which kernel runs; tw_last_choice names the one that ran. */
TW_C_API int tw_linear_packed_mma(tw_context* ctx, int32_t dtype, int64_t tokens, int32_t format, int64_t out_features,
                                  int64_t in_features, const void* x, const void* q, const void* scales,
                                  const void* q_mma, const void* scales_mma, void* y, void* stream);

#ifdef __cplusplus
}
#endif

#endif
