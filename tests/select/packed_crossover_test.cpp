// Where linear on packed weights runs the sm90 kernel at 1..16 tokens (src/select/packed_crossover.hpp): each format's
// crossover as measured, and the gemv everywhere on a GPU the crossover was not measured on; on the tensor-core copy
// alone, the gemv on the copy where the measurement put it ahead.
#include "select/packed_crossover.hpp"

#include <gtest/gtest.h>

#include "core/problem.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "jit/cache.hpp"

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

// The nineteen points both kernels ran in results/gemv-order-persistent-h100/order-persistent.json.gz (nn.Linear's
// F x K at T tokens, int4 g128, the gemv's problem with tokens as M): the gemv on the copy, in its persistent default
// (gemv/heuristic.cpp), ran ahead of the sm90 kernel at every one (1.36-1.97x), and the rule says so, with the warps
// counted from the kernels as compiled (what linear counts them with) and from the register estimate alike. 4096 x
// 14336 at 8 tokens, the twentieth, is past the engine's shared memory. (The rule's threshold was fitted on the
// one-tile grids before it, where the gemv fell behind at 8 or fewer warps an SM: results/gemv-mma-order-tokens-h100/.)
TEST(PackedCrossover, OnTheCopyAloneTheGemvWhereItKeepsTheSmsBusy) {
  struct Point {
    int64_t F, K, tokens;
    bool gemv_ran_ahead;
  };
  const Point measured[] = {
      {12288, 4096, 1, true}, {12288, 4096, 2, true}, {12288, 4096, 4, true}, {12288, 4096, 8, true},
      {4096, 14336, 1, true}, {4096, 14336, 2, true}, {4096, 14336, 4, true}, {28672, 8192, 1, true},
      {28672, 8192, 2, true}, {28672, 8192, 4, true}, {28672, 8192, 8, true}, {4096, 4096, 1, true},
      {4096, 4096, 2, true},  {4096, 4096, 4, true},  {4096, 4096, 8, true},  {7168, 5120, 1, true},
      {7168, 5120, 2, true},  {7168, 5120, 4, true},  {7168, 5120, 8, true}};
  int agree = 0, agree_compiled = 0;
  for (const Point& m : measured) {
    const Problem p = make_problem("lin", m.tokens, m.F, m.K, DType::bf16, Layout::TN);
    const auto c = gemv::default_config_on(p, gemv::Format::int4_g128, gemv::Engine::mma_order, 132);
    ASSERT_TRUE(c) << describe(p);
    agree += order_gemv_ahead(gemv::resident_warps(*c, p, 132)) == m.gemv_ran_ahead;
    const int registers = jit::build(gemv::kernel_build(*c, /*y_rows=*/true)).usage.registers;
    ASSERT_GT(registers, 0) << gemv::to_string(*c);
    agree_compiled += order_gemv_ahead(gemv::resident_warps(*c, p, 132, registers)) == m.gemv_ran_ahead;
  }
  EXPECT_EQ(agree, 19);
  EXPECT_EQ(agree_compiled, 19);
  EXPECT_FALSE(gemv::default_config_on(make_problem("lin", 8, 4096, 14336, DType::bf16, Layout::TN),
                                       gemv::Format::int4_g128, gemv::Engine::mma_order, 132));
}

}  // namespace
}  // namespace tilewise::select
