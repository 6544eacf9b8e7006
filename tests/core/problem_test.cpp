#include "core/problem.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "expect_error.hpp"

namespace tilewise {
namespace {

using tilewise::testkit::Contains;
using tilewise::testkit::error_of;

constexpr int64_t int32_max = std::numeric_limits<int32_t>::max();

// ---- make_problem --------------------------------------------------------------------------------------------

TEST(MakeProblem, TightLeadingDimsForTN) {
  const Problem p = make_problem("tn", 128, 64, 256, DType::bf16, Layout::TN);
  EXPECT_EQ(p.lda, 256);  // A is K-major
  EXPECT_EQ(p.ldb, 256);
  EXPECT_EQ(p.ldc, 128);
  EXPECT_NO_THROW(validate(p));
}

TEST(MakeProblem, TightLeadingDimsForNN) {
  const Problem p = make_problem("nn", 128, 64, 256, DType::bf16, Layout::NN);
  EXPECT_EQ(p.lda, 128);  // A is M-major
  EXPECT_EQ(p.ldb, 256);
  EXPECT_EQ(p.ldc, 128);
  EXPECT_NO_THROW(validate(p));
}

TEST(MakeProblem, PaddedLeadingDimsAddThePadToEach) {
  const Problem tn = make_problem("tn", 128, 64, 256, DType::fp16, Layout::TN, 8);
  EXPECT_EQ(tn.lda, 264);
  EXPECT_EQ(tn.ldb, 264);
  EXPECT_EQ(tn.ldc, 136);
  EXPECT_NO_THROW(validate(tn));

  const Problem nn = make_problem("nn", 128, 64, 256, DType::fp16, Layout::NN, 8);
  EXPECT_EQ(nn.lda, 136);
  EXPECT_EQ(nn.ldb, 264);
  EXPECT_EQ(nn.ldc, 136);
  EXPECT_NO_THROW(validate(nn));
}

TEST(MakeProblem, KeepsNameShapeAndTypes) {
  const Problem p = make_problem("x", 3, 5, 7, DType::fp8_e4m3, Layout::TN);
  EXPECT_EQ(p.name, "x");
  EXPECT_EQ(p.M, 3);
  EXPECT_EQ(p.N, 5);
  EXPECT_EQ(p.K, 7);
  EXPECT_EQ(p.dtype, DType::fp8_e4m3);
  EXPECT_EQ(p.layout, Layout::TN);
}

// ---- validate ------------------------------------------------------------------------------------------------

TEST(Validate, RejectsNonPositiveSizesNamingProblemAndDimension) {
  for (int64_t bad : {int64_t{0}, int64_t{-4}}) {
    Problem p = make_problem("shape_a", 64, 64, 64, DType::bf16, Layout::TN);
    p.M = bad;
    std::string msg = error_of([&] { validate(p); });
    EXPECT_TRUE(Contains(msg, "shape_a"));
    EXPECT_TRUE(Contains(msg, "M = " + std::to_string(bad)));
    EXPECT_TRUE(Contains(msg, "must be positive"));

    p = make_problem("shape_b", 64, 64, 64, DType::bf16, Layout::TN);
    p.N = bad;
    msg = error_of([&] { validate(p); });
    EXPECT_TRUE(Contains(msg, "shape_b"));
    EXPECT_TRUE(Contains(msg, "N = " + std::to_string(bad)));

    p = make_problem("shape_c", 64, 64, 64, DType::bf16, Layout::TN);
    p.K = bad;
    msg = error_of([&] { validate(p); });
    EXPECT_TRUE(Contains(msg, "shape_c"));
    EXPECT_TRUE(Contains(msg, "K = " + std::to_string(bad)));
  }
}

TEST(Validate, UnnamedProblemIsCalledProblem) {
  Problem p = make_problem("", 64, 64, 64, DType::bf16, Layout::TN);
  p.K = 0;
  EXPECT_TRUE(Contains(error_of([&] { validate(p); }), "problem: K = 0"));
}

TEST(Validate, RejectsADtypeOrLayoutCodeOutsideTheEnums) {
  // A C caller's code cast into the enums: once read as fp32 by cuBLASLt's type map, or as NN.
  Problem p = make_problem("cast", 64, 64, 64, DType::bf16, Layout::TN);
  p.dtype = DType(7);
  EXPECT_TRUE(Contains(error_of([&] { validate(p); }), "cast: unknown dtype code 7"));
  p.dtype = DType::bf16, p.layout = Layout(5);
  EXPECT_TRUE(Contains(error_of([&] { validate(p); }), "cast: unknown layout code 5"));
}

TEST(Validate, RejectsDimensionAboveInt32Max) {
  const Problem ok = make_problem("edge", int32_max, 1, 1, DType::bf16, Layout::TN);
  EXPECT_NO_THROW(validate(ok));

  const Problem p = make_problem("huge", int32_max + 1, 1, 1, DType::bf16, Layout::TN);
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "huge"));
  EXPECT_TRUE(Contains(msg, "M = 2147483648 exceeds 2147483647"));

  const Problem k = make_problem("deep", 1, 1, int32_max + 1, DType::bf16, Layout::NN);
  EXPECT_TRUE(Contains(error_of([&] { validate(k); }), "K = 2147483648 exceeds"));
}

// Each size fits int32 and each operand fits int64, but A, B and C together do not: `tilewise suite` once printed
// such a line "ok" with a negative set size.
TEST(Validate, RejectsOperandsWhoseTotalSizeOverflows) {
  const Problem p = make_problem("cube", 1500000000, 1500000000, 1500000000, DType::bf16, Layout::TN);
  EXPECT_TRUE(Contains(error_of([&] { validate(p); }), "cube: the operands' size overflows 64 bits"));
  EXPECT_TRUE(Contains(error_of([&] { min_traffic_bytes(p); }), "cube: the least traffic overflows 64 bits"));
  Problem q = make_problem("wide", 2147483647, 1, 1, DType::bf16, Layout::TN);
  q.lda = int64_t(1) << 40;  // as a receipt or campaign file may claim
  EXPECT_TRUE(Contains(error_of([&] { a_bytes(q); }), "wide: A's size overflows 64 bits"));
}

TEST(MakeProblem, ALeadingDimensionThatWouldOverflowIsAnError) {
  EXPECT_TRUE(Contains(error_of([] { make_problem("p", 1, 1, 1, DType::bf16, Layout::TN, INT64_MAX); }),
                       "p: a leading dimension overflows 64 bits"));
  EXPECT_TRUE(Contains(error_of([] { make_problem("q", 64, 1, INT64_MAX - 3, DType::fp8_e4m3, Layout::TN); }),
                       "q: a leading dimension overflows 64 bits"));
}

TEST(Validate, RejectsLeadingDimensionAboveInt32Max) {
  Problem p = make_problem("wide_ld", 64, 64, 64, DType::bf16, Layout::TN);
  p.ldc = int32_max + 1;
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "wide_ld"));
  EXPECT_TRUE(Contains(msg, "ldc = 2147483648 exceeds"));
}

TEST(Validate, TNNeedsLdaAtLeastK) {
  Problem p = make_problem("tn_lda", 128, 64, 256, DType::bf16, Layout::TN);
  p.lda = 255;
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "tn_lda"));
  EXPECT_TRUE(Contains(msg, "lda = 255"));
  EXPECT_TRUE(Contains(msg, "minimum K"));
  EXPECT_TRUE(Contains(msg, "= 256"));
  // lda = M (128) would be legal in NN but is not in TN.
  p.lda = 128;
  EXPECT_TRUE(Contains(error_of([&] { validate(p); }), "lda = 128"));
}

TEST(Validate, NNNeedsLdaAtLeastM) {
  Problem p = make_problem("nn_lda", 128, 64, 256, DType::bf16, Layout::NN);
  p.lda = 127;
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "nn_lda"));
  EXPECT_TRUE(Contains(msg, "lda = 127"));
  EXPECT_TRUE(Contains(msg, "minimum M"));
  EXPECT_TRUE(Contains(msg, "= 128"));
}

TEST(Validate, LdbAtLeastKInBothLayouts) {
  for (Layout l : {Layout::TN, Layout::NN}) {
    Problem p = make_problem("ldb_rule", 128, 64, 256, DType::fp16, l);
    p.ldb = 255;
    const std::string msg = error_of([&] { validate(p); });
    EXPECT_TRUE(Contains(msg, "ldb_rule"));
    EXPECT_TRUE(Contains(msg, "ldb = 255"));
    EXPECT_TRUE(Contains(msg, "minimum K"));
  }
}

TEST(Validate, LdcAtLeastMInBothLayouts) {
  for (Layout l : {Layout::TN, Layout::NN}) {
    Problem p = make_problem("ldc_rule", 128, 64, 256, DType::fp16, l);
    p.ldc = 64;
    const std::string msg = error_of([&] { validate(p); });
    EXPECT_TRUE(Contains(msg, "ldc_rule"));
    EXPECT_TRUE(Contains(msg, "ldc = 64"));
    EXPECT_TRUE(Contains(msg, "minimum M"));
  }
}

TEST(Validate, Fp8RefusesNN) {
  const Problem p = make_problem("f8nn", 128, 64, 256, DType::fp8_e4m3, Layout::NN);
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "f8nn"));
  EXPECT_TRUE(Contains(msg, "fp8"));
  EXPECT_TRUE(Contains(msg, "TN"));
  EXPECT_TRUE(Contains(msg, "NN is not supported"));
}

TEST(Validate, Fp8NeedsLdaAndLdbMultipleOf16) {
  EXPECT_NO_THROW(validate(make_problem("f8ok", 128, 64, 256, DType::fp8_e4m3, Layout::TN)));

  Problem p = make_problem("f8lda", 128, 64, 256, DType::fp8_e4m3, Layout::TN);
  p.lda = 264;  // legal for bf16, not a multiple of 16
  std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "f8lda"));
  EXPECT_TRUE(Contains(msg, "multiples of 16"));
  EXPECT_TRUE(Contains(msg, "lda=264"));

  p = make_problem("f8ldb", 128, 64, 256, DType::fp8_e4m3, Layout::TN);
  p.ldb = 257;
  msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "f8ldb"));
  EXPECT_TRUE(Contains(msg, "ldb=257"));

  // The same strides are fine for bf16.
  Problem b = make_problem("bf", 128, 64, 256, DType::bf16, Layout::TN);
  b.lda = 264;
  b.ldb = 257;
  EXPECT_NO_THROW(validate(b));
}

TEST(Validate, Fp8NeedsLdcMultipleOf8WhenMIsAboveOne) {
  Problem p = make_problem("f8ldc", 100, 64, 256, DType::fp8_e4m3, Layout::TN);
  EXPECT_EQ(p.ldc, 104);  // make_problem rounds up to the tightest legal value
  p.ldc = 100;
  const std::string msg = error_of([&] { validate(p); });
  EXPECT_TRUE(Contains(msg, "f8ldc"));
  EXPECT_TRUE(Contains(msg, "multiple of 8"));
  EXPECT_TRUE(Contains(msg, "got 100"));
  // Decode shapes have M = 1: C is one column and its leading dimension does not matter.
  EXPECT_NO_THROW(validate(make_problem("dec", 1, 12288, 4096, DType::fp8_e4m3, Layout::TN)));
}

TEST(MakeProblem, Fp8RoundsLeadingDimensionsUp) {
  const Problem p = make_problem("f8", 4, 300, 100, DType::fp8_e4m3, Layout::TN, 1);
  EXPECT_EQ(p.lda, 112);  // K + 1 = 101 -> 112
  EXPECT_EQ(p.ldb, 112);
  EXPECT_EQ(p.ldc, 8);    // M + 1 = 5 -> 8
  EXPECT_NO_THROW(validate(p));
}

// ---- parsing and names ---------------------------------------------------------------------------------------

TEST(ParseDtype, AcceptsDocumentedSpellings) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp16"), DType::fp16);
  EXPECT_EQ(parse_dtype("fp8"), DType::fp8_e4m3);
  EXPECT_EQ(parse_dtype("e4m3"), DType::fp8_e4m3);
}

TEST(ParseDtype, RejectsOthersNamingTheText) {
  for (const char* bad : {"fp32", "BF16", "bf", "e5m2", ""}) {
    const std::string msg = error_of([&] { parse_dtype(bad); });
    EXPECT_TRUE(Contains(msg, std::string("'") + bad + "'"));
  }
}

TEST(ParseLayout, AcceptsTNAndNN) {
  EXPECT_EQ(parse_layout("TN"), Layout::TN);
  EXPECT_EQ(parse_layout("NN"), Layout::NN);
}

TEST(ParseLayout, RejectsOthersNamingTheText) {
  for (const char* bad : {"tn", "NT", "TT", "N", ""}) {
    const std::string msg = error_of([&] { parse_layout(bad); });
    EXPECT_TRUE(Contains(msg, std::string("'") + bad + "'"));
  }
}

TEST(Names, ToStringParsesBack) {
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3}) EXPECT_EQ(parse_dtype(to_string(d)), d);
  for (Layout l : {Layout::TN, Layout::NN}) EXPECT_EQ(parse_layout(to_string(l)), l);
}

TEST(Types, OutputTypeAndElementSize) {
  EXPECT_EQ(output_dtype(DType::bf16), DType::bf16);
  EXPECT_EQ(output_dtype(DType::fp16), DType::fp16);
  EXPECT_EQ(output_dtype(DType::fp8_e4m3), DType::bf16);
  EXPECT_EQ(element_bytes(DType::bf16), 2);
  EXPECT_EQ(element_bytes(DType::fp16), 2);
  EXPECT_EQ(element_bytes(DType::fp8_e4m3), 1);
}

// ---- sizes and work ------------------------------------------------------------------------------------------

TEST(Sizes, Bf16TNPaddedByHand) {
  // M=128 N=64 K=256, pad 8: lda = ldb = 264, ldc = 136, 2-byte elements.
  const Problem p = make_problem("ex", 128, 64, 256, DType::bf16, Layout::TN, 8);
  EXPECT_EQ(a_bytes(p), 67584);   // 264 x 128 columns x 2
  EXPECT_EQ(b_bytes(p), 33792);   // 264 x 64 x 2
  EXPECT_EQ(c_bytes(p), 17408);   // 136 x 64 x 2
  EXPECT_EQ(min_traffic_bytes(p), 114688);  // (128*256 + 256*64) * 2 + 128*64 * 2, padding excluded
  EXPECT_DOUBLE_EQ(flops(p), 4194304.0);    // 2 * 128 * 64 * 256
}

TEST(Sizes, NNStoresAWithKColumns) {
  // A is M x K stored M-major: lda (136) x K (256) columns.
  const Problem p = make_problem("ex", 128, 64, 256, DType::fp16, Layout::NN, 8);
  EXPECT_EQ(a_bytes(p), 69632);  // 136 x 256 x 2
  EXPECT_EQ(b_bytes(p), 33792);
  EXPECT_EQ(c_bytes(p), 17408);
}

TEST(Sizes, Fp8ReadsOneByteAndWritesBf16) {
  const Problem p = make_problem("ex8", 128, 64, 256, DType::fp8_e4m3, Layout::TN, 16);
  EXPECT_EQ(a_bytes(p), 34816);  // 272 x 128 x 1
  EXPECT_EQ(b_bytes(p), 17408);  // 272 x 64 x 1
  EXPECT_EQ(c_bytes(p), 18432);  // 144 x 64 x 2 (bf16 out)
  EXPECT_EQ(min_traffic_bytes(p), 65536);  // (32768 + 16384) * 1 + 8192 * 2
  EXPECT_DOUBLE_EQ(flops(p), 4194304.0);
}

TEST(Sizes, LargeProblemDoesNotOverflow) {
  const Problem p = make_problem("big", 16384, 16384, 16384, DType::bf16, Layout::TN);
  EXPECT_EQ(a_bytes(p), int64_t{536870912});            // 2^14 * 2^14 * 2
  EXPECT_EQ(min_traffic_bytes(p), int64_t{1610612736});  // three of them
  EXPECT_DOUBLE_EQ(flops(p), 8796093022208.0);           // 2^43
}

TEST(Describe, ShowsSignature) {
  const Problem p = make_problem("d4k_qkv_pf", 4096, 8192, 4096, DType::bf16, Layout::TN);
  EXPECT_EQ(describe(p), "d4k_qkv_pf bf16 TN 4096x8192x4096 lda=4096 ldb=4096 ldc=4096");
}

// ---- JSON ----------------------------------------------------------------------------------------------------

TEST(ProblemJson, RoundTrips) {
  for (const Problem& p : {make_problem("a", 16, 12288, 4096, DType::fp8_e4m3, Layout::TN, 16),
                           make_problem("b", 100, 200, 300, DType::fp16, Layout::NN, 3),
                           make_problem("c", 1, 1, 1, DType::bf16, Layout::TN)}) {
    const nlohmann::json j = p;
    EXPECT_EQ(j.get<Problem>(), p);
    EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Problem>(), p);
  }
}

TEST(ProblemJson, UsesReadableNames) {
  const nlohmann::json j = make_problem("a", 16, 32, 64, DType::fp8_e4m3, Layout::TN, 16);
  EXPECT_EQ(j.at("dtype"), "fp8");
  EXPECT_EQ(j.at("layout"), "TN");
  EXPECT_EQ(j.at("lda"), 80);
  EXPECT_EQ(j.at("ldc"), 32);
}

TEST(ProblemJson, SizesThatAreNotWholeNumbersAreErrorsNamingTheField) {
  const nlohmann::json good = make_problem("a", 16, 32, 64, DType::bf16, Layout::TN);
  const auto error = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[key] = value;
    return error_of([&] { j.get<Problem>(); });
  };
  EXPECT_TRUE(Contains(error("M", 512.5), "problem field 'M': expected a whole number, got 512.5"));
  EXPECT_TRUE(Contains(error("ldc", "32"), "problem field 'ldc'"));
  EXPECT_TRUE(Contains(error("K", nlohmann::json(uint64_t(1) << 63)), "problem field 'K'"));
  nlohmann::json whole = good;
  whole["N"] = 48;
  EXPECT_EQ(whole.get<Problem>().N, 48);  // a whole number reads as before
}

TEST(ProblemJson, BadDtypeIsAnError) {
  nlohmann::json j = make_problem("a", 16, 32, 64, DType::bf16, Layout::TN);
  j["dtype"] = "fp64";
  EXPECT_TRUE(Contains(error_of([&] { j.get<Problem>(); }), "'fp64'"));
}

}  // namespace
}  // namespace tilewise
