#pragma once
// A GEMM problem as tilewise::gemm takes it: sizes, element type, layout and leading dimensions, column-major as in
// cuBLAS. C[M x N] = op(A) op(B), BLAS naming:
//   TN: A stored K-major (lda >= K), B stored K-major (ldb >= K)  -- nn.Linear's y = x W^T
//   NN: A stored M-major (lda >= M), B stored K-major (ldb >= K)
// nn.Linear's y[T, F] = x[T, K] W[F, K]^T (both row-major) is TN with M = F, N = T, A = W, B = x, C = y and ldc = F:
// C column-major [F x T] is y row-major. linear_problem() builds it.
#include <cstdint>
#include <string>
#include <string_view>

#include "tilewise/export.hpp"

namespace tilewise {

// Input element type. fp16/bf16 accumulate in fp32 and write their own type; fp8 e4m3 writes bf16.
enum class DType { bf16, fp16, fp8_e4m3 };
enum class Layout { TN, NN };

TILEWISE_API std::string_view to_string(DType d);
TILEWISE_API std::string_view to_string(Layout l);
TILEWISE_API DType parse_dtype(std::string_view s);    // "bf16", "fp16", "fp8"; throws Error naming the text
TILEWISE_API Layout parse_layout(std::string_view s);  // "TN", "NN"

TILEWISE_API DType output_dtype(DType in);
TILEWISE_API int element_bytes(DType d);

struct Problem {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::bf16;
  Layout layout = Layout::TN;
  int64_t lda = 0, ldb = 0, ldc = 0;

  bool operator==(const Problem&) const = default;
};

// A problem with the tightest leading dimensions plus `pad` elements on each, rounded up where the dtype needs it
// (fp8: lda and ldb to 16 elements, ldc to 8 when M > 1). Throws Error when a leading dimension overflows 64 bits.
TILEWISE_API Problem make_problem(std::string name, int64_t M, int64_t N, int64_t K, DType dtype, Layout layout, int64_t pad = 0);
// nn.Linear's y[tokens, out_features] = x[tokens, in_features] W^T with every tensor contiguous: TN with
// M = out_features, N = tokens, K = in_features, lda = ldb = K, ldc = out_features. Run it as
// gemm(ctx, p, W, x, y, stream). Not validated (validate() says what it breaks).
TILEWISE_API Problem linear_problem(int64_t tokens, int64_t out_features, int64_t in_features, DType dtype);

// Throws Error naming the problem and the rule it breaks: non-positive or overflowing sizes, a leading dimension
// under its minimum, an unsupported dtype/layout combination, a stride the vendor library cannot take.
TILEWISE_API void validate(const Problem& p);

TILEWISE_API int64_t min_lda(const Problem& p);
TILEWISE_API int64_t min_ldb(const Problem& p);
TILEWISE_API int64_t min_ldc(const Problem& p);

// Bytes of each operand's allocation as stored (leading dimension times the stored column count).
TILEWISE_API int64_t a_bytes(const Problem& p);
TILEWISE_API int64_t b_bytes(const Problem& p);
TILEWISE_API int64_t c_bytes(const Problem& p);

// "d4k_qkv_pf bf16 TN 4096x8192x4096 lda=4096 ldb=4096 ldc=4096"
TILEWISE_API std::string describe(const Problem& p);

}  // namespace tilewise
