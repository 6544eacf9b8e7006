#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace tilewise {

// Input element type. fp16/bf16 accumulate in fp32 and write their own type; fp8 e4m3 writes bf16.
enum class DType { bf16, fp16, fp8_e4m3 };
// Column-major BLAS naming, C[MxN] = op(A) op(B):
//   TN: A stored K-major (lda >= K), B stored K-major (ldb >= K)  -- nn.Linear's y = x W^T
//   NN: A stored M-major (lda >= M), B stored K-major (ldb >= K)
enum class Layout { TN, NN };

std::string_view to_string(DType d);
std::string_view to_string(Layout l);
DType parse_dtype(std::string_view s);    // "bf16", "fp16", "fp8"; throws Error naming the text
Layout parse_layout(std::string_view s);  // "TN", "NN"

DType output_dtype(DType in);
int element_bytes(DType d);

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
Problem make_problem(std::string name, int64_t M, int64_t N, int64_t K, DType dtype, Layout layout, int64_t pad = 0);

// Throws Error naming the problem and the rule it breaks: non-positive or overflowing sizes, a leading dimension
// under its minimum, an unsupported dtype/layout combination, a stride the vendor library cannot take.
void validate(const Problem& p);

int64_t min_lda(const Problem& p);
int64_t min_ldb(const Problem& p);
int64_t min_ldc(const Problem& p);

// Bytes of each operand's allocation as stored (leading dimension times the stored column count).
int64_t a_bytes(const Problem& p);
int64_t b_bytes(const Problem& p);
int64_t c_bytes(const Problem& p);
// The least traffic the problem needs: each operand read once, C written once (tight, padding excluded).
int64_t min_traffic_bytes(const Problem& p);
double flops(const Problem& p);

// "d4k_qkv_pf bf16 TN 4096x8192x4096 lda=4096 ldb=4096 ldc=4096"
std::string describe(const Problem& p);

void to_json(nlohmann::json& j, const Problem& p);
void from_json(const nlohmann::json& j, Problem& p);

}  // namespace tilewise
