// Where linear on packed weights runs the sm90 kernel at 1..16 tokens (src/select/packed_crossover.hpp): each format's
// crossover as measured, and the gemv everywhere on a GPU the crossover was not measured on.
#include "select/packed_crossover.hpp"

#include <gtest/gtest.h>

namespace tilewise::select {
namespace {

TEST(PackedCrossover, EachFormatFromItsMeasuredTokenCountKAndN) {
  const int64_t n = 4096;  // N matters to int4 g128 only
  // Q8_0 from 8 tokens on every K and N measured.
  for (int64_t k : {4096, 8192, 14336})
    for (int64_t rows : {4096, 28672}) {
      EXPECT_FALSE(tensor_cores_ahead(WeightFormat::q8_0, 7, k, rows)) << k;
      EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 8, k, rows)) << k;
      EXPECT_TRUE(tensor_cores_ahead(WeightFormat::q8_0, 16, k, rows)) << k;
    }
  // fp8 from 12 tokens where K >= 8192, any N.
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 16, 4096, n));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::fp8, 11, 8192, n));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 12, 8192, n));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::fp8, 16, 14336, 28672));
  // int4 g128 from 12 tokens where N <= 8192 and K >= 5120 (results/quant-crossover-fresh.json): Qwen2.5-14B's o and
  // down and a 70B layer's o yes; Llama-3-8B's o (4096 x 4096) and every N >= 10240 no.
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 12, 5120, 5120));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 13824, 5120));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 8192, 8192));
  EXPECT_TRUE(tensor_cores_ahead(WeightFormat::int4_g128, 12, 14336, 4096));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 11, 14336, 4096));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 4096, 4096));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 8192, 10240));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 5120, 27648));
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 5119, 4096));  // the bounds, each side
  EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g128, 16, 8192, 8193));
  // int4 g32 was not measured: the gemv at every token count.
  for (int64_t t = 1; t <= kGemvMaxTokens; ++t) EXPECT_FALSE(tensor_cores_ahead(WeightFormat::int4_g32, t, 14336, n));
  // One token is the gemv's for every format.
  for (WeightFormat f : {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128, WeightFormat::fp8})
    EXPECT_FALSE(tensor_cores_ahead(f, 1, 28672, n));
}

TEST(PackedCrossover, OnlyTheGpuItWasMeasuredOn) {
  EXPECT_TRUE(crossover_measured_on("NVIDIA H200"));
  for (std::string_view gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200 NVL", ""})
    EXPECT_FALSE(crossover_measured_on(gpu)) << gpu;
}

}  // namespace
}  // namespace tilewise::select
