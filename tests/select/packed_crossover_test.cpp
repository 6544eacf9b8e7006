// Where linear on packed weights runs the sm90 kernel at 1..16 tokens (src/select/packed_crossover.hpp): each
// format's crossover as measured, and the gemv everywhere on a GPU the crossover was not measured on.
#include <gtest/gtest.h>

#include "select/packed_crossover.hpp"

namespace tilewise::select {
namespace {

constexpr std::string_view kH200 = kCrossoverMeasuredOn;

TEST(PackedCrossover, EachFormatFromItsMeasuredTokenCountAndK) {
  // Q8_0 from 8 tokens on every K measured.
  for (int64_t k : {4096, 8192, 14336}) {
    EXPECT_FALSE(tensor_cores_ahead(WeightFormat::q8_0, 7, k, kH200)) << k;
    EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 8, k, kH200)) << k;
    EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 16, k, kH200)) << k;
  }
  // fp8 from 12 tokens where K >= 8192.
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 16, 4096, kH200));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 11, 8192, kH200));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 12, 8192, kH200));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 16, 14336, kH200));
  // int4 g128 from 12 tokens at K = 14336, not at 8192.
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 8192, kH200));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 11, 14336, kH200));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 12, 14336, kH200));
  // int4 g32 was not measured: the gemv at every token count.
  for (int64_t t = 1; t <= kGemvMaxTokens; ++t) EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g32, t, 14336, kH200));
  // One token is the gemv's for every format.
  for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128, WeightFormat::fp8})
    EXPECT_FALSE(tensor_cores_ahead(f, 1, 28672, kH200));
}

TEST(PackedCrossover, AnotherGpuKeepsTheGemv) {
  for (std::string_view gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200 NVL", ""})
    for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::fp8, WeightFormat::int4_g128})
      EXPECT_FALSE(tensor_cores_ahead(f, 16, 14336, gpu)) << gpu;
}

}  // namespace
}  // namespace tilewise::select
