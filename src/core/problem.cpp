#include "core/problem.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "core/checked.hpp"
#include "core/error.hpp"

namespace tilewise {

std::string_view to_string(DType d) {
  switch (d) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp8_e4m3: return "fp8";
  }
  return "?";
}

std::string_view to_string(Layout l) { return l == Layout::TN ? "TN" : "NN"; }

DType parse_dtype(std::string_view s) {
  if (s == "bf16") return DType::bf16;
  if (s == "fp16") return DType::fp16;
  if (s == "fp8" || s == "e4m3") return DType::fp8_e4m3;
  throw Error(fmt::format("unknown dtype '{}' (expected bf16, fp16 or fp8)", s));
}

Layout parse_layout(std::string_view s) {
  if (s == "TN") return Layout::TN;
  if (s == "NN") return Layout::NN;
  throw Error(fmt::format("unknown layout '{}' (expected TN or NN)", s));
}

DType output_dtype(DType in) { return in == DType::fp8_e4m3 ? DType::bf16 : in; }

int element_bytes(DType d) { return d == DType::fp8_e4m3 ? 1 : 2; }

int64_t min_lda(const Problem& p) { return p.layout == Layout::TN ? p.K : p.M; }
int64_t min_ldb(const Problem& p) { return p.K; }
int64_t min_ldc(const Problem& p) { return p.M; }

namespace {
int64_t round_up(int64_t v, int64_t m, const std::string& what) { return checked_sum({v, m - 1}, what) / m * m; }
}  // namespace

Problem make_problem(std::string name, int64_t M, int64_t N, int64_t K, DType dtype, Layout layout, int64_t pad) {
  Problem p{std::move(name), M, N, K, dtype, layout, 0, 0, 0};
  const std::string what = fmt::format("{}: a leading dimension", p.name.empty() ? std::string("problem") : p.name);
  p.lda = checked_sum({min_lda(p), pad}, what);
  p.ldb = checked_sum({min_ldb(p), pad}, what);
  p.ldc = checked_sum({min_ldc(p), pad}, what);
  if (dtype == DType::fp8_e4m3) {  // the tightest leading dimensions cuBLASLt's fp8 kernels take (see validate)
    p.lda = round_up(p.lda, 16, what);
    p.ldb = round_up(p.ldb, 16, what);
    if (M > 1) p.ldc = round_up(p.ldc, 8, what);
  }
  return p;
}

Problem linear_problem(int64_t tokens, int64_t out_features, int64_t in_features, DType dtype) {
  return {"linear", out_features, tokens, in_features, dtype, Layout::TN, in_features, in_features, out_features};
}

namespace {

// Stored columns of each operand (column-major): A is K x M (TN) or M x K (NN), B is K x N, C is M x N.
int64_t a_columns(const Problem& p) { return p.layout == Layout::TN ? p.M : p.K; }

std::string size_of(const Problem& p, const char* what) {
  return fmt::format("{}: {}", p.name.empty() ? std::string("problem") : p.name, what);
}

}  // namespace

int64_t a_bytes(const Problem& p) {
  return checked_product({p.lda, a_columns(p), element_bytes(p.dtype)}, size_of(p, "A's size"));
}
int64_t b_bytes(const Problem& p) { return checked_product({p.ldb, p.N, element_bytes(p.dtype)}, size_of(p, "B's size")); }
int64_t c_bytes(const Problem& p) {
  return checked_product({p.ldc, p.N, element_bytes(output_dtype(p.dtype))}, size_of(p, "C's size"));
}

ProblemIdentity problem_identity(const Problem& p) { return {p.M, p.N, p.K, p.dtype, p.layout, p.lda, p.ldb, p.ldc}; }

int64_t min_traffic_bytes(const Problem& p) {
  const std::string what = size_of(p, "the least traffic");
  const int64_t in = element_bytes(p.dtype), out = element_bytes(output_dtype(p.dtype));
  return checked_sum({checked_product({p.M, p.K, in}, what), checked_product({p.K, p.N, in}, what),
                      checked_product({p.M, p.N, out}, what)},
                     what);
}

double flops(const Problem& p) { return 2.0 * double(p.M) * double(p.N) * double(p.K); }

void validate(const Problem& p) {
  // Sizes are int32 inside kernels and cuBLASLt descriptors; anything larger is refused before it overflows.
  constexpr int64_t max_dim = std::numeric_limits<int32_t>::max();
  auto where = [&] { return p.name.empty() ? std::string("problem") : p.name; };
  // A value cast into the enums from outside (a C caller's code) is named, never read as some other type.
  if (p.dtype != DType::bf16 && p.dtype != DType::fp16 && p.dtype != DType::fp8_e4m3)
    throw Error(fmt::format("{}: unknown dtype code {}", where(), int(p.dtype)));
  if (p.layout != Layout::TN && p.layout != Layout::NN)
    throw Error(fmt::format("{}: unknown layout code {}", where(), int(p.layout)));
  for (auto [v, n] : {std::pair{p.M, "M"}, {p.N, "N"}, {p.K, "K"}}) {
    if (v <= 0) throw Error(fmt::format("{}: {} = {} must be positive", where(), n, v));
    if (v > max_dim) throw Error(fmt::format("{}: {} = {} exceeds {}", where(), n, v, max_dim));
  }
  struct Ld { int64_t value, minimum; const char* name; const char* rule; };
  const Ld lds[] = {
      {p.lda, min_lda(p), "lda", p.layout == Layout::TN ? "K (A is K-major in TN)" : "M (A is M-major in NN)"},
      {p.ldb, min_ldb(p), "ldb", "K (B is K-major)"},
      {p.ldc, min_ldc(p), "ldc", "M (C is column-major)"},
  };
  for (const Ld& ld : lds) {
    if (ld.value < ld.minimum)
      throw Error(fmt::format("{}: {} = {} is under its minimum {} = {}", where(), ld.name, ld.value, ld.rule, ld.minimum));
    if (ld.value > max_dim) throw Error(fmt::format("{}: {} = {} exceeds {}", where(), ld.name, ld.value, max_dim));
  }
  // One set of operands must have a size: three 1.5e9 sizes fit int32 each, but A, B and C together pass 2^63 bytes.
  checked_sum({a_bytes(p), b_bytes(p), c_bytes(p)}, size_of(p, "the operands' size"));
  if (p.dtype == DType::fp8_e4m3) {
    if (p.layout != Layout::TN)
      throw Error(fmt::format("{}: fp8 e4m3 needs layout TN (both operands K-major); {} is not supported",
                              where(), to_string(p.layout)));
    // cuBLASLt's fp8 kernels need 16-byte aligned columns: of A and B always, of C (bf16) once it has more than
    // one row (measured on cuBLASLt 13.1: M=4 with ldc=4 is refused, M=1 with ldc=1 runs).
    if (p.lda % 16 || p.ldb % 16)
      throw Error(fmt::format("{}: fp8 needs lda and ldb to be multiples of 16 elements (got lda={}, ldb={})",
                              where(), p.lda, p.ldb));
    if (p.M > 1 && p.ldc % 8)
      throw Error(fmt::format("{}: fp8 writes bf16 C, whose ldc must be a multiple of 8 elements when M > 1 (got {})",
                              where(), p.ldc));
  }
}

std::string describe(const Problem& p) {
  return fmt::format("{} {} {} {}x{}x{} lda={} ldb={} ldc={}", p.name, to_string(p.dtype), to_string(p.layout), p.M,
                     p.N, p.K, p.lda, p.ldb, p.ldc);
}

void to_json(nlohmann::json& j, const Problem& p) {
  j = {{"name", p.name}, {"M", p.M},     {"N", p.N},     {"K", p.K},     {"dtype", to_string(p.dtype)},
       {"layout", to_string(p.layout)}, {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}};
}

namespace {

// A size or stride as written: a whole number in int64_t. nlohmann's get<int64_t> would truncate 512.5 to 512 and
// wrap an unsigned value past the range.
int64_t whole_field(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  const bool whole = v.is_number_integer() &&
                     (!v.is_number_unsigned() || v.get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max()));
  if (!whole) throw Error(fmt::format("problem field '{}': expected a whole number, got {}", key, v.dump()));
  return v.get<int64_t>();
}

}  // namespace

void from_json(const nlohmann::json& j, Problem& p) {
  p.name = j.at("name").get<std::string>();
  p.M = whole_field(j, "M");
  p.N = whole_field(j, "N");
  p.K = whole_field(j, "K");
  p.dtype = parse_dtype(j.at("dtype").get<std::string>());
  p.layout = parse_layout(j.at("layout").get<std::string>());
  p.lda = whole_field(j, "lda");
  p.ldb = whole_field(j, "ldb");
  p.ldc = whole_field(j, "ldc");
}

}  // namespace tilewise
