// Where linear on packed weights runs the sm90 kernel at 1..16 tokens (src/select/packed_crossover.hpp): each format's
// crossover as measured, and the gemv everywhere on a GPU the crossover was not measured on.
#include "select/packed_crossover.hpp"

#include <gtest/gtest.h>

namespace tilewise::select {
namespace {

TEST(PackedCrossover, EachFormatFromItsMeasuredTokenCountAndK) {
  // Q8_0 from 8 tokens on every K measured.
  for (int64_t k : {4096, 8192, 14336}) {
    EXPECT_FALSE(tensor_cores_ahead(WeightFormat::q8_0, 7, k)) << k;
    EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 8, k)) << k;
    EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 16, k)) << k;
  }
  // fp8 from 12 tokens where K >= 8192.
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 16, 4096));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 11, 8192));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 12, 8192));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 16, 14336));
  // int4 g128 from 12 tokens at K = 14336, not at 8192.
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 8192));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 11, 14336));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 12, 14336));
  // int4 g32 was not measured: the gemv at every token count.
  for (int64_t t = 1; t <= kGemvMaxTokens; ++t) EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g32, t, 14336));
  // One token is the gemv's for every format.
  for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128, WeightFormat::fp8})
    EXPECT_FALSE(tensor_cores_ahead(f, 1, 28672));
}

TEST(PackedCrossover, OnlyTheGpuItWasMeasuredOn) {
  EXPECT_TRUE(crossover_measured_on("NVIDIA H200"));
  for (std::string_view gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200 NVL", ""})
    EXPECT_FALSE(crossover_measured_on(gpu)) << gpu;
}

}  // namespace
}  // namespace tilewise::select
