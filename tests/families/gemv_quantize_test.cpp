// The CPU quantizer (the reference the GPU must match): Q8_0 bit for bit as ggml computes it, the host conversions,
// round trips within each format's error, and clear errors for shapes a format cannot take. No GPU.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "core/numeric.hpp"
#include "expect_error.hpp"
#include "families/gemv/quantize.hpp"

namespace tilewise::gemv {
namespace {

using testkit::Contains;
using testkit::error_of;

std::vector<uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<uint16_t> out;
  for (float f : v) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    EXPECT_EQ(bits & 0xFFFF, 0u) << f << " is not a bf16 value";
    out.push_back(uint16_t(bits >> 16));
  }
  return out;
}

uint16_t scale_bits(const HostPacked& w, size_t i) {
  uint16_t b;
  std::memcpy(&b, w.scales.data() + 2 * i, 2);
  return b;
}

// Expected values computed independently (Python, float32 emulated through struct) from ggml's
// quantize_row_q8_0_ref: d = amax/127 in fp32, id = 1/d, q = roundf(x*id), d stored as fp16 (round to nearest even).
TEST(GemvQuantize, Q8_0IsBitIdenticalToGgml) {
  struct Known {
    std::vector<float> x;
    uint16_t d;
    std::vector<int> q;
  };
  std::vector<float> a = {127.0f, 2.5f, -2.5f, 0.5f, -0.5f, 126.5f, 1.5f, -1.5f};  // d = 1: ties round away from 0
  for (int j = 0; j < 24; ++j) a.push_back(float(j) - 12.0f);
  std::vector<float> b;
  for (int j = 0; j < 32; ++j) b.push_back(float(j - 16) / 16.0f);
  b[5] = -1.0f;
  const float vals[] = {0.30078125f, -0.2001953125f, 0.1005859375f, 0.05029296875f,
                        -0.0250244140625f, 0.298828125f, -0.150390625f, 0.0f};
  std::vector<float> c;
  for (int j = 0; j < 32; ++j) c.push_back(vals[j % 8] * (j < 16 ? 1.0f : -1.0f));
  const Known known[] = {
      {a, 15360, {127, 3, -3, 1, -1, 127, 2, -2, -12, -11, -10, -9, -8, -7, -6, -5,
                  -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
      {b, 8200, {-127, -119, -111, -103, -95, -127, -79, -71, -64, -56, -48, -40, -32, -24, -16, -8,
                 0, 8, 16, 24, 32, 40, 48, 56, 64, 71, 79, 87, 95, 103, 111, 119}},
      {c, 6362, {127, -85, 42, 21, -11, 126, -64, 0, 127, -85, 42, 21, -11, 126, -64, 0,
                 -127, 85, -42, -21, 11, -126, 64, 0, -127, 85, -42, -21, 11, -126, 64, 0}},
      {std::vector<float>(32, 0.0f), 0, std::vector<int>(32, 0)},  // d = 0: every q is 0
  };
  // All four groups in one 2 x 64 matrix, so the group and row indexing is checked too.
  std::vector<float> all;
  for (const Known& k : known) all.insert(all.end(), k.x.begin(), k.x.end());
  const std::vector<uint16_t> src = to_bf16(all);
  const HostPacked w = quantize_cpu(src.data(), DType::bf16, 2, 64, 64, Format::q8_0);
  ASSERT_EQ(w.q.size(), 128u);
  ASSERT_EQ(w.scales.size(), 8u);
  for (size_t g = 0; g < 4; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(scale_bits(w, g), known[g].d);
    for (size_t j = 0; j < 32; ++j) EXPECT_EQ(int(int8_t(w.q[g * 32 + j])), known[g].q[j]) << "element " << j;
  }
}

TEST(GemvQuantize, HostConversionsRoundToNearestEven) {
  EXPECT_EQ(float_to_fp16_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_fp16_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -25)), 0x0000);      // tie to even
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(3.0f, -25)), 0x0002);      // tie to even
  EXPECT_EQ(float_to_fp16_bits(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(float_to_fp16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie to even
  EXPECT_EQ(float_to_fp16_bits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_fp16_bits(NAN), 0x7FFF);  // the GPU's canonical NaN
  EXPECT_EQ(float_to_bf16_bits(NAN), 0x7FFF);
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) {  // every finite fp16 value converts back to itself
    ASSERT_EQ(float_to_fp16_bits(float(fp16_to_double(uint16_t(bits)))), bits);
    ASSERT_EQ(float_to_fp16_bits(float(fp16_to_double(uint16_t(bits | 0x8000)))), bits | 0x8000);
  }
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(3.0f, -8)), 0x3F82);
  for (uint32_t c = 0; c < 256; ++c) {  // every e4m3 code but NaN converts back to itself
    if ((c & 0x7F) == 0x7F) continue;
    ASSERT_EQ(float_to_e4m3_bits(float(e4m3_to_double(uint8_t(c)))), c);
  }
  EXPECT_EQ(float_to_e4m3_bits(1.0625f), 0x38);  // between 1.0 (0x38) and 1.125: tie to even
  EXPECT_EQ(float_to_e4m3_bits(1.1875f), 0x3A);
  EXPECT_EQ(float_to_e4m3_bits(500.0f), 0x7E);   // saturates to 448
  EXPECT_EQ(float_to_e4m3_bits(-1e9f), 0xFE);
  EXPECT_EQ(float_to_e4m3_bits(std::ldexp(1.0f, -10)), 0x00);  // half the smallest subnormal: tie to even
}

// Deterministic values in [-1, 1) with a spread of magnitudes per group, as bf16.
std::vector<uint16_t> weights(int64_t n, int64_t k, int64_t ld) {
  std::vector<float> v(size_t(n * ld), 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const double t = std::sin(double(i * 131 + j * 7 + 1)) * (1.0 + double((i + j / 32) % 5)) / 6.0;
      v[size_t(i * ld + j)] = std::bit_cast<float>(std::bit_cast<uint32_t>(float(t)) & 0xFFFF0000u);
    }
  return to_bf16(v);
}

TEST(GemvQuantize, RoundTripsStayWithinEachFormatsError) {
  const int64_t N = 5, K = 256, ld = 264;  // a padded source stride
  const std::vector<uint16_t> src = weights(N, K, ld);
  for (Format f : {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8}) {
    SCOPED_TRACE(std::string(to_string(f)));
    const HostPacked w = quantize_cpu(src.data(), DType::bf16, N, K, ld, f);
    EXPECT_EQ(w.layout, packed_layout(f, N, K));
    EXPECT_EQ(int64_t(w.q.size()), w.layout.q_bytes());
    EXPECT_EQ(int64_t(w.scales.size()), w.layout.scale_bytes);
    const std::vector<float> back = dequantize_cpu(w);
    const int G = group_size(f);
    for (int64_t n = 0; n < N; ++n) {
      float row_amax = 0;
      for (int64_t k = 0; k < K; ++k) row_amax = std::max(row_amax, std::fabs(float(bf16_to_double(src[n * ld + k]))));
      for (int64_t k = 0; k < K; ++k) {
        const float x = float(bf16_to_double(src[n * ld + k])), y = back[size_t(n * K + k)];
        float bound = 0;
        if (f == Format::bf16) bound = 0;
        else if (f == Format::fp16) bound = std::fabs(x) * std::ldexp(1.0f, -11);
        else if (f == Format::fp8) bound = std::max(std::fabs(x) * 0.0625f, row_amax / 448 * std::ldexp(1.0f, -10)) * 1.001f;
        else {
          const float d = float(fp16_to_double(scale_bits(w, size_t(n * (K / G) + k / G))));
          bound = d * (f == Format::q8_0 ? 0.6f : 0.51f) + 1e-7f;
        }
        ASSERT_LE(std::fabs(x - y), bound) << "n=" << n << " k=" << k << " x=" << x << " back=" << y;
      }
    }
  }
}

TEST(GemvQuantize, Int4PacksTwoPerByteWithAZeroPointOf8) {
  std::vector<float> x(32, 0.0f);
  x[0] = 7.0f, x[1] = -7.0f, x[2] = 0.5f, x[3] = -0.5f, x[4] = 3.5f;  // amax 7: d = 1, q = roundf(x)
  const std::vector<uint16_t> src = to_bf16(x);
  const HostPacked w = quantize_cpu(src.data(), DType::bf16, 1, 32, 32, Format::int4_g32);
  EXPECT_EQ(scale_bits(w, 0), 0x3C00);
  EXPECT_EQ(w.q[0], 0x1F);  // element 0 (q 7 -> 15) low, element 1 (q -7 -> 1) high
  EXPECT_EQ(w.q[1], 0x79);  // 0.5 -> 1 -> 9, -0.5 -> -1 -> 7
  EXPECT_EQ(w.q[2], 0x8C);  // 3.5 -> 4 -> 12, 0 -> 8
}

TEST(GemvQuantize, ShapesAFormatCannotTakeAreErrorsNamingTheRule) {
  EXPECT_TRUE(Contains(error_of([] { packed_layout(Format::q8_0, 4, 48); }), "multiple of 32 (the group of 32"));
  EXPECT_TRUE(Contains(error_of([] { packed_layout(Format::int4_g128, 4, 96); }), "group of 128"));
  // K = 200 is neither whole chunks of 32 nor groups of 128: the message names the multiple that satisfies both.
  EXPECT_TRUE(Contains(error_of([] { packed_layout(Format::int4_g128, 4, 200); }),
                       "int4g128 weights need K to be a multiple of 128 (the group of 128 a scale, in whole 16-byte "
                       "chunks of 32); K = 200"));
  EXPECT_TRUE(Contains(error_of([] { packed_layout(Format::bf16, 4, 12); }), "multiple of 8"));
  EXPECT_TRUE(Contains(error_of([] { packed_layout(Format::fp8, 0, 64); }), "positive"));
  const std::vector<uint16_t> src(64, 0);
  EXPECT_TRUE(Contains(error_of([&] { quantize_cpu(src.data(), DType::bf16, 1, 64, 32, Format::fp8); }), "stride"));
  // Refused before any memory is touched, so no buffer of that size is needed: a stride past 64 bits of bytes, and
  // for the GPU quantizer (whose kernels index in 32 bits) K past 2^31 - 1, where it once reported success over
  // uninitialised bytes.
  for (const auto& run : {std::function<void()>([&] { quantize_cpu(src.data(), DType::bf16, 3, 32, int64_t(1) << 62,
                                                                     Format::q8_0); }),
                          std::function<void()>([&] { quantize(src.data(), DType::bf16, 3, 32, int64_t(1) << 62,
                                                                 Format::q8_0, nullptr); })})
    EXPECT_TRUE(Contains(error_of(run), "the weights' size overflows 64 bits"));
  EXPECT_TRUE(Contains(error_of([&] { quantize(src.data(), DType::bf16, 1, int64_t(1) << 31, int64_t(1) << 31,
                                               Format::q8_0, nullptr); }),
                       "quantize: weights of 1 x 2147483648 are past the kernel's 32-bit rows and columns"));
  EXPECT_EQ(packed_layout(Format::int4_g128, 3, 256).bytes(), 3 * 128 + 3 * 2 * 2);
  EXPECT_EQ(packed_layout(Format::fp8, 3, 256).bytes(), 3 * 256 + 3 * 4);
}

}  // namespace
}  // namespace tilewise::gemv
