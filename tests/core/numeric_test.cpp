#include "core/numeric.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace tilewise {
namespace {

// Expected values below come from the format definitions:
//   bfloat16: 1 sign, 8 exponent (bias 127), 7 mantissa bits; subnormals when the exponent field is 0.
//   IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; exponent 31 is inf (mantissa 0) or NaN.
//   OCP fp8 E4M3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities, S.1111.111 is NaN.

TEST(Bf16, NormalValues) {
  EXPECT_EQ(bf16_to_double(0x3F80), 1.0);   // exp 127, mant 0
  EXPECT_EQ(bf16_to_double(0xC000), -2.0);  // sign, exp 128
  EXPECT_EQ(bf16_to_double(0x3FC0), 1.5);   // mant 0x40 = 1/2
  EXPECT_EQ(bf16_to_double(0x4049), 3.140625);  // exp 128, mant 0x49 = 73/128: 2 * (1 + 73/128)
  EXPECT_EQ(bf16_to_double(0x7F7F), std::ldexp(255.0, 120));  // largest finite: (2 - 2^-7) * 2^127
}

TEST(Bf16, ZeroAndSubnormals) {
  EXPECT_EQ(bf16_to_double(0x0000), 0.0);
  EXPECT_TRUE(std::signbit(bf16_to_double(0x8000)));
  EXPECT_EQ(bf16_to_double(0x8000), 0.0);
  EXPECT_EQ(bf16_to_double(0x0001), std::ldexp(1.0, -133));   // 2^-126 * 2^-7
  EXPECT_EQ(bf16_to_double(0x007F), std::ldexp(127.0, -133)); // largest subnormal
  EXPECT_EQ(bf16_to_double(0x0080), std::ldexp(1.0, -126));   // smallest normal
  EXPECT_EQ(bf16_to_double(0x8001), -std::ldexp(1.0, -133));
}

TEST(Bf16, InfinityAndNaN) {
  EXPECT_EQ(bf16_to_double(0x7F80), INFINITY);
  EXPECT_EQ(bf16_to_double(0xFF80), -INFINITY);
  EXPECT_TRUE(std::isnan(bf16_to_double(0x7FC0)));
  EXPECT_TRUE(std::isnan(bf16_to_double(0x7F81)));
}

TEST(Fp16, NormalValues) {
  EXPECT_EQ(fp16_to_double(0x3C00), 1.0);   // exp 15, mant 0
  EXPECT_EQ(fp16_to_double(0xC000), -2.0);  // sign, exp 16
  EXPECT_EQ(fp16_to_double(0x3555), 1365.0 / 4096.0);  // exp 13, mant 341: (1024 + 341) * 2^-12
  EXPECT_EQ(fp16_to_double(0x7BFF), 65504.0);          // largest finite: (2 - 2^-10) * 2^15
  EXPECT_EQ(fp16_to_double(0xFBFF), -65504.0);
}

TEST(Fp16, ZeroAndSubnormals) {
  EXPECT_EQ(fp16_to_double(0x0000), 0.0);
  EXPECT_TRUE(std::signbit(fp16_to_double(0x8000)));
  EXPECT_EQ(fp16_to_double(0x0001), std::ldexp(1.0, -24));     // 2^-14 * 2^-10
  EXPECT_EQ(fp16_to_double(0x8001), -std::ldexp(1.0, -24));
  EXPECT_EQ(fp16_to_double(0x03FF), std::ldexp(1023.0, -24));  // largest subnormal
  EXPECT_EQ(fp16_to_double(0x0400), std::ldexp(1.0, -14));     // smallest normal
}

TEST(Fp16, InfinityAndNaN) {
  EXPECT_EQ(fp16_to_double(0x7C00), INFINITY);
  EXPECT_EQ(fp16_to_double(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(fp16_to_double(0x7E00)));
  EXPECT_TRUE(std::isnan(fp16_to_double(0x7C01)));
  EXPECT_TRUE(std::isnan(fp16_to_double(0xFFFF)));
}

#ifdef __FLT16_MAX__
// Every binary16 pattern against the compiler's own _Float16, an implementation independent of ours.
TEST(Fp16, EveryPatternMatchesCompilerFloat16) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const _Float16 h = std::bit_cast<_Float16>(uint16_t(bits));
    const double want = double(h), got = fp16_to_double(uint16_t(bits));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << bits;
    } else {
      EXPECT_EQ(got, want) << std::hex << bits;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << std::hex << bits;
    }
  }
}
#endif

TEST(E4m3, NormalValues) {
  EXPECT_EQ(e4m3_to_double(0x38), 1.0);   // exp 7, mant 0
  EXPECT_EQ(e4m3_to_double(0xC0), -2.0);  // sign, exp 8
  EXPECT_EQ(e4m3_to_double(0x3C), 1.5);   // exp 7, mant 4 = 1/2
  EXPECT_EQ(e4m3_to_double(0x08), std::ldexp(1.0, -6));  // smallest normal
  EXPECT_EQ(e4m3_to_double(0x78), 256.0);  // exp 15, mant 0: a number, E4M3 has no infinity
}

TEST(E4m3, MaxFiniteIs448) {
  EXPECT_EQ(e4m3_to_double(0x7E), 448.0);  // exp 15, mant 6: (1 + 6/8) * 2^8
  EXPECT_EQ(e4m3_to_double(0xFE), -448.0);
}

TEST(E4m3, ZeroAndSubnormals) {
  EXPECT_EQ(e4m3_to_double(0x00), 0.0);
  EXPECT_TRUE(std::signbit(e4m3_to_double(0x80)));
  EXPECT_EQ(e4m3_to_double(0x01), std::ldexp(1.0, -9));  // 2^-6 * 2^-3
  EXPECT_EQ(e4m3_to_double(0x81), -std::ldexp(1.0, -9));
  EXPECT_EQ(e4m3_to_double(0x07), std::ldexp(7.0, -9));  // largest subnormal
}

TEST(E4m3, OnlyAllOnesIsNaN) {
  EXPECT_TRUE(std::isnan(e4m3_to_double(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_double(0xFF)));
  int nans = 0;
  for (int b = 0; b < 256; ++b) nans += std::isnan(e4m3_to_double(uint8_t(b)));
  EXPECT_EQ(nans, 2);
}

TEST(E4m3, PositiveCodesIncreaseWithEvenStepsPerBinade) {
  // 0x00..0x7E are the non-negative values in order; within a binade (8 codes) the step is constant, and it
  // doubles from one binade to the next (the subnormal binade has the same step as the first normal one).
  for (int b = 1; b <= 0x7E; ++b) {
    const double prev = e4m3_to_double(uint8_t(b - 1)), cur = e4m3_to_double(uint8_t(b));
    ASSERT_GT(cur, prev) << b;
    const int binade = (b - 1) >> 3;  // the step to the next code is the lower code's binade's
    const double step = std::ldexp(1.0, std::max(binade, 1) - 10);
    EXPECT_EQ(cur - prev, step) << std::hex << b;
    EXPECT_EQ(e4m3_to_double(uint8_t(b | 0x80)), -cur) << std::hex << b;
  }
}

TEST(ElementToDouble, IndexesByType) {
  const uint16_t bf[] = {0x3F80, 0xC000};
  const uint16_t hf[] = {0x3C00, 0x7BFF};
  const uint8_t f8[] = {0x38, 0x7E, 0x01};
  EXPECT_EQ(element_to_double(DType::bf16, bf, 1), -2.0);
  EXPECT_EQ(element_to_double(DType::fp16, hf, 1), 65504.0);
  EXPECT_EQ(element_to_double(DType::fp8_e4m3, f8, 1), 448.0);
  EXPECT_EQ(element_to_double(DType::fp8_e4m3, f8, 2), std::ldexp(1.0, -9));
}

}  // namespace
}  // namespace tilewise
