// The public API of packed weights without a GPU (include/tilewise/quantized.hpp): each format's layout, its names,
// the CPU quantizer and dequantizer as the gemv family's own, and the errors for what they cannot take.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "expect_error.hpp"
#include "families/gemv/quantize.hpp"
#include "tilewise/quantized.hpp"

namespace tilewise {
namespace {

TEST(PackedShape, EachFormatsLayout) {
  const PackedShape q8 = packed_shape(WeightFormat::q8_0, 64, 256);
  EXPECT_EQ(q8.row_bytes, 256);
  EXPECT_EQ(q8.scale_bytes, 64 * 256 / 32 * 2);
  EXPECT_EQ(q8.q_bytes(), 64 * 256);
  EXPECT_EQ(packed_shape(WeightFormat::int4_g32, 64, 256).row_bytes, 128);
  EXPECT_EQ(packed_shape(WeightFormat::int4_g128, 64, 256).scale_bytes, 64 * 2 * 2);
  EXPECT_EQ(packed_shape(WeightFormat::fp8, 64, 256).scale_bytes, 64 * 4);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { packed_shape(WeightFormat::int4_g128, 64, 96); }),
                                "multiple of"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { packed_shape(WeightFormat::q8_0, 0, 256); }), "positive"));
}

TEST(PackedShape, FormatNamesRoundTrip) {
  for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128, WeightFormat::fp8})
    EXPECT_EQ(parse_weight_format(to_string(f)), f);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { parse_weight_format("int3"); }), "unknown weight format 'int3'"));
}

TEST(QuantizeHost, IsTheGemvFamilysReferenceAndDequantizesBack) {
  const int64_t F = 8, K = 128, ld = 136;  // padded rows
  std::vector<uint16_t> w(size_t(F * ld));
  for (size_t i = 0; i < w.size(); ++i) w[i] = gemv::float_to_bf16_bits(std::sin(float(i)) * 0.5f);
  for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128, WeightFormat::fp8}) {
    SCOPED_TRACE(std::string(to_string(f)));
    const PackedShape s = packed_shape(f, F, K);
    std::vector<uint8_t> q(size_t(s.q_bytes())), scales(size_t(s.scale_bytes));
    quantize_host(w.data(), DType::bf16, ld, s, q.data(), scales.data());
    const gemv::HostPacked ref = gemv::quantize_cpu(w.data(), DType::bf16, F, K, ld, gemv::Format(int(f)));
    EXPECT_EQ(q, ref.q);
    EXPECT_EQ(scales, ref.scales);
    std::vector<float> out(size_t(F * K));
    dequantize_host({s, q.data(), scales.data()}, out.data());
    EXPECT_EQ(out, gemv::dequantize_cpu(ref));
  }
}

TEST(QuantizeHost, RefusesWhatItCannotTake) {
  const PackedShape s = packed_shape(WeightFormat::q8_0, 4, 64);
  std::vector<uint16_t> w(4 * 64);
  std::vector<uint8_t> q(size_t(s.q_bytes())), scales(size_t(s.scale_bytes));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { quantize_host(w.data(), DType::fp8_e4m3, 64, s, q.data(), scales.data()); }), "fp8"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { quantize_host(w.data(), DType::bf16, 32, s, q.data(), scales.data()); }), "stride"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { quantize_host(w.data(), DType::bf16, 64, s, nullptr, scales.data()); }), "q (0x0)"));
  PackedShape forged = s;
  forged.row_bytes = 16;  // not the format's: the buffers' sizes would be wrong
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { quantize_host(w.data(), DType::bf16, 64, forged, q.data(), scales.data()); }),
      "row_bytes 16"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { dequantize_host({s, q.data(), nullptr}, nullptr); }),
                                "needs q, scales and the output"));
  // The GPU dequantizer's errors come before any launch: no GPU is needed to see them.
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({s, q.data(), nullptr}, q.data(), DType::bf16, nullptr); }),
      "needs q, scales and the output"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({s, q.data(), scales.data()}, q.data(), DType::fp8_e4m3, nullptr); }),
      "not fp8"));
  // What the kernel reads and writes each value as: misaligned, the context would fault, so it is an Error first.
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({s, q.data(), scales.data() + 1}, q.data(), DType::bf16, nullptr); }),
      "dequantize: scales is not 2-byte aligned"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({s, q.data(), scales.data()}, q.data() + 1, DType::fp16, nullptr); }),
      "dequantize: the output is not 2-byte aligned"));
  const PackedShape tall = packed_shape(WeightFormat::fp8, int64_t(1) << 31, 16);  // rows past a 32-bit int
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({tall, q.data(), scales.data()}, q.data(), DType::bf16, nullptr); }),
      "past the kernel's 32-bit rows and columns"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { dequantize({forged, q.data(), scales.data()}, q.data(), DType::fp16, nullptr); }),
      "row_bytes 16"));
}

// pack_for_tensor_cores refuses, before touching the GPU, what the tensor-core order cannot hold.
TEST(PackForTensorCores, RefusesWhatTheOrderCannotHold) {
  int dummy[4] = {};
  const PackedShape int4 = packed_shape(WeightFormat::int4_g128, 128, 256);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] {
                                  pack_for_tensor_cores({int4, dummy, dummy}, nullptr, dummy, nullptr);
                                }),
                                "needs q, scales and both outputs"));
  // Misaligned or overlapping outputs (nothing is launched: the checks come first).
  alignas(16) unsigned char q[128 * 128] = {}, scales[2 * 128 * 2] = {}, q_out[128 * 128] = {}, s_out[512] = {};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] {
                                  pack_for_tensor_cores({int4, q, scales}, q_out + 4, s_out, nullptr);
                                }),
                                "16-byte aligned"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { pack_for_tensor_cores({int4, q, scales}, q, s_out, nullptr); }), "must not overlap"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { pack_for_tensor_cores({int4, q, scales}, q_out, q_out + 16, nullptr); }),
      "must not overlap"));
  for (WeightFormat f : {WeightFormat::int4_g32, WeightFormat::q8_0, WeightFormat::fp8}) {
    const PackedShape rows = packed_shape(f, 96, 256);
    EXPECT_TRUE(testkit::Contains(
        testkit::error_of([&] { pack_for_tensor_cores({rows, dummy, dummy}, dummy, dummy, nullptr); }),
        "whole blocks of 64"));
  }
}

TEST(LinearProblem, IsNnLinearsOrientation) {
  const Problem p = linear_problem(5, 4096, 1024, DType::fp16);
  EXPECT_EQ(p, (Problem{"linear", 4096, 5, 1024, DType::fp16, Layout::TN, 1024, 1024, 4096}));
  validate(p);
}

}  // namespace
}  // namespace tilewise
