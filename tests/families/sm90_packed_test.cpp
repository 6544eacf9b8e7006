// Packed int4, Q8_0 and fp8 weights in the sm90 kernel's order (kernels/sm90/packed.h), on the CPU: each value lands
// where wgmma's m64k16 A fragment takes it (register r of thread t at step s holds rows g and g + 8, columns 2 (t % 4)
// and 8 on, as the PTX ISA lays the fragment out: checked here from that description, not from packed_order.h's
// formulas), each scale in its block and group; the configuration field; what packed weights need of a problem. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "expect_error.hpp"
#include "families/gemv/quantize.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/registry.hpp"
#include "families/sm90/packed.hpp"

namespace tilewise::sm90 {
namespace {

using testkit::Contains;
using testkit::error_of;

gemv::HostPacked random_int4(gemv::Format f, int64_t N, int64_t K, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> w(size_t(N * K));
  for (uint16_t& v : w) v = gemv::float_to_bf16_bits(u(rng));
  return gemv::quantize_cpu(w.data(), DType::bf16, N, K, K, f);
}

int row_nibble(const gemv::HostPacked& rows, int64_t n, int64_t k) {
  return (rows.q[size_t(n * rows.layout.row_bytes + k / 2)] >> (4 * (k % 2))) & 0xF;
}

TEST(Sm90Packed, EachValueLandsInTheRegisterOfItsFragment) {
  for (gemv::Format f : {gemv::Format::int4_g128, gemv::Format::int4_g32}) {
    const int64_t N = 192, K = 256;  // three blocks of rows, four of K
    const gemv::HostPacked rows = random_int4(f, N, K, 7);
    const gemv::HostPacked packed = to_kernel_order_cpu(rows);
    ASSERT_EQ(packed.q.size(), rows.q.size());
    int checked = 0;
    for (int64_t nb = 0; nb < N / 64; ++nb)
      for (int64_t kb = 0; kb < K / 64; ++kb)
        for (int t = 0; t < 128; ++t)
          for (int s = 0; s < 4; ++s) {
            uint32_t word;
            std::memcpy(&word, packed.q.data() + ((nb * (K / 64) + kb) * 2048 + t * 16 + s * 4), 4);
            const int warp = t / 32, lane = t % 32, g = lane / 4;
            for (int r = 0; r < 4; ++r) {
              const uint32_t reg = (word >> (4 * r)) & 0x000F000Fu;
              const int64_t row = nb * 64 + warp * 16 + g + (r % 2 ? 8 : 0);
              const int64_t col = kb * 64 + s * 16 + 2 * (lane % 4) + (r / 2 ? 8 : 0);
              EXPECT_EQ(int(reg & 0xF), row_nibble(rows, row, col));
              EXPECT_EQ(int(reg >> 16), row_nibble(rows, row, col + 1));
              checked += 2;
            }
          }
    EXPECT_EQ(checked, N * K);
  }
}

// A value a byte (Q8_0, fp8): thread t's 16 bytes in each half of a block hold its fragments step by step (steps 0-1
// in the first half, 2-3 in the second), byte 2r + e of step s the value of register r, element e (rows and columns
// as int4's above); fp8's row scales keep their order.
TEST(Sm90Packed, EachByteValueLandsInTheRegisterOfItsFragment) {
  for (gemv::Format f : {gemv::Format::fp8, gemv::Format::q8_0}) {
    const int64_t N = 192, K = 256;
    const gemv::HostPacked rows = random_int4(f, N, K, 13);
    const gemv::HostPacked packed = to_kernel_order_cpu(rows);
    ASSERT_EQ(packed.q.size(), rows.q.size());
    if (f == gemv::Format::fp8) EXPECT_EQ(packed.scales, rows.scales);
    int checked = 0;
    for (int64_t nb = 0; nb < N / 64; ++nb)
      for (int64_t kb = 0; kb < K / 64; ++kb)
        for (int t = 0; t < 128; ++t)
          for (int s = 0; s < 4; ++s) {
            const uint8_t* step =
                packed.q.data() + ((nb * (K / 64) + kb) * 4096 + (s / 2) * 2048 + t * 16 + s % 2 * 8);
            const int warp = t / 32, lane = t % 32, g = lane / 4;
            for (int r = 0; r < 4; ++r)
              for (int e = 0; e < 2; ++e) {
                const int64_t row = nb * 64 + warp * 16 + g + (r % 2 ? 8 : 0);
                const int64_t col = kb * 64 + s * 16 + 2 * (lane % 4) + (r / 2 ? 8 : 0) + e;
                EXPECT_EQ(step[2 * r + e], rows.q[size_t(row * rows.layout.row_bytes + col)]);
                ++checked;
              }
          }
    EXPECT_EQ(checked, N * K);
  }
}

TEST(Sm90Packed, ScalesGoToTheirBlockAndGroup) {
  for (gemv::Format f : {gemv::Format::int4_g128, gemv::Format::int4_g32, gemv::Format::q8_0}) {
    const int64_t N = 128, K = 384;
    const int groups = int(K / gemv::group_size(f));
    const gemv::HostPacked rows = random_int4(f, N, K, 11);
    const gemv::HostPacked packed = to_kernel_order_cpu(rows);
    for (int64_t n = 0; n < N; ++n)
      for (int g = 0; g < groups; ++g) {
        const size_t at = size_t(((n / 64) * groups + g) * 64 + n % 64), from = size_t(n * groups + g);
        EXPECT_EQ(std::memcmp(packed.scales.data() + 2 * at, rows.scales.data() + 2 * from, 2), 0) << n << " " << g;
      }
  }
}

TEST(Sm90Packed, FormatsAndShapesTheOrderCannotTakeAreNamed) {
  const gemv::HostPacked plain = random_int4(gemv::Format::bf16, 64, 64, 1);
  EXPECT_TRUE(Contains(error_of([&] { to_kernel_order_cpu(plain); }), "bf16 weights have no sm90 kernel order"));
  const gemv::HostPacked short_rows = random_int4(gemv::Format::int4_g32, 96, 64, 1);
  EXPECT_TRUE(Contains(error_of([&] { to_kernel_order_cpu(short_rows); }), "96 x 64"));
  const gemv::HostPacked short_k = random_int4(gemv::Format::int4_g32, 64, 96, 1);
  EXPECT_TRUE(Contains(error_of([&] { to_kernel_order_cpu(short_k); }), "whole blocks of 64"));
  EXPECT_TRUE(Contains(error_of([] { packed_weights(gemv::Format::fp16); }), "not fp16"));
  EXPECT_EQ(packed_weights(gemv::Format::q8_0), Weights::q8_0);
  EXPECT_EQ(packed_weights(gemv::Format::int4_g32), Weights::int4_g32);
  EXPECT_EQ(packed_weights(gemv::Format::fp8), Weights::fp8);
}

TEST(Sm90Packed, TheWeightsFieldIsWrittenOnlyWhenSet) {
  Config c{128, 128, 8, 2, Raster::m, 8, Store::tma};
  const std::string plain = to_string(c);
  c.weights = Weights::int4_g128;
  EXPECT_EQ(to_string(c), plain + ",weights=int4g128");
  EXPECT_EQ(parse_config(to_string(c)), c);
  EXPECT_EQ(parse_config(plain).weights, Weights::as_input);
  c.weights = Weights::fp8;
  EXPECT_EQ(to_string(c), plain + ",weights=fp8");
  EXPECT_EQ(parse_config(to_string(c)), c);
  EXPECT_TRUE(Contains(error_of([] { parse_config("weights=int8"); }), "weights"));
}

TEST(Sm90Packed, OnlyThePackedArmsPassPackedWeights) {
  const Problem p = make_problem("p", 256, 4096, 4096, DType::bf16, Layout::TN);
  const families::Family& sm90 = families::family("sm90");
  // tilewise::gemm (and a database entry) runs a configuration on the problem's own operands: refused with why.
  EXPECT_TRUE(Contains(sm90.infeasible("block_m=128,block_n=128,weights=int4g128", p, 132).value_or("feasible"),
                       "only the packed arms (sm90:int4, sm90:int4-g32, sm90:int8, sm90:fp8) pass"));
  EXPECT_EQ(sm90.infeasible("block_m=128,block_n=128,stages=4,store=tma", p, 132), std::nullopt);
  EXPECT_TRUE(Contains(error_of([&] { sm90.make_arm("sm90:block_m=128;weights=int4g128"); }), "arm sm90:block_m=128"));
  // The packed arms read their overrides when they are named, before any GPU work.
  EXPECT_TRUE(Contains(error_of([&] { sm90.make_arm("sm90:int4@garbage"); }), "'garbage' is not key=value"));
  EXPECT_TRUE(Contains(error_of([&] { sm90.make_arm("sm90:int4@colour=red"); }), "colour"));
  // Which operand holds the weights is the suite's orientation, known when the arm prepares a problem: swap=1 is
  // named here and checked against it there (Sm90PackedGpu.TheArmsPackTheOperandTheOrientationNames).
  EXPECT_NE(sm90.make_arm("sm90:int4@block_m=64;swap=1"), nullptr);
  EXPECT_NE(sm90.make_arm("sm90:int4-g32@block_m=64;split=2"), nullptr);
  EXPECT_NE(sm90.make_arm("sm90:fp8@block_m=64"), nullptr);
  EXPECT_NE(sm90.make_arm("sm90:int8@block_m=64"), nullptr);
}

TEST(Sm90Packed, WhatPackedWeightsNeedOfTheProblem) {
  Config c{128, 128, 8, 2, Raster::m, 8, Store::tma};
  c.weights = Weights::int4_g128;
  const Problem ok = make_problem("p", 256, 4096, 4096, DType::bf16, Layout::TN);
  EXPECT_EQ(infeasible(c, ok), std::nullopt);
  EXPECT_EQ(infeasible(c, make_problem("p", 256, 4096, 4096, DType::fp16, Layout::TN)), std::nullopt);
  const auto why = [&](const Config& cfg, const Problem& p) { return infeasible(cfg, p).value_or("feasible"); };
  EXPECT_TRUE(Contains(why(c, make_problem("p", 256, 4096, 4096, DType::fp8_e4m3, Layout::TN)), "not fp8"));
  EXPECT_TRUE(Contains(why(c, make_problem("p", 256, 4096, 4096, DType::bf16, Layout::NN)), "K-major"));
  EXPECT_TRUE(Contains(why(c, make_problem("p", 256, 4096, 4160, DType::bf16, Layout::TN)), "multiple of 128"));
  EXPECT_TRUE(Contains(why(c, make_problem("p", 256, 4000, 4096, DType::bf16, Layout::TN)), "whole blocks of 64"));
  Config g32 = c;
  g32.weights = Weights::int4_g32;
  EXPECT_EQ(infeasible(g32, make_problem("p", 256, 4096, 4160, DType::bf16, Layout::TN)), std::nullopt);
  Config cluster = c;
  cluster.cluster_m = 2;
  EXPECT_TRUE(Contains(why(cluster, ok), "cluster 1x1"));
  Config three = c;
  three.block_n = 192, three.consumers = 3, three.stages = 4;
  EXPECT_TRUE(Contains(why(three, ok), "one or two consumers"));
  Config dependent = c;
  dependent.pdl = true;
  EXPECT_TRUE(Contains(why(dependent, ok), "programmatic"));
  // nn.Linear's orientation: the packed operand is A, swapped onto wgmma's 64-row side (F = 4096 rows, 256 tokens).
  Config swapped = c;
  swapped.swap = true, swapped.store = Store::direct;
  EXPECT_EQ(infeasible(swapped, make_problem("p", 4096, 256, 4096, DType::bf16, Layout::TN)), std::nullopt);
  EXPECT_TRUE(Contains(why(swapped, make_problem("p", 4000, 256, 4096, DType::bf16, Layout::TN)), "whole blocks"));
  // The packed stage is smaller than a bf16 one: 2 blocks of 2048 bytes and 2 x 128 bytes of scales, padded to 5 KB.
  Config plain = c;
  plain.weights = Weights::as_input;
  EXPECT_EQ(shared_bytes(plain) - shared_bytes(c), 8 * (128 * 128 - 5 * 1024));
  // fp8 weights: 64 x 64 blocks and no group, so K need only be a multiple of 64; 2 blocks of 4096 bytes a stage.
  Config fp8 = c;
  fp8.weights = Weights::fp8;
  EXPECT_EQ(infeasible(fp8, make_problem("p", 256, 4096, 4160, DType::bf16, Layout::TN)), std::nullopt);
  EXPECT_TRUE(Contains(why(fp8, make_problem("p", 256, 4096, 4128, DType::bf16, Layout::TN)), "multiple of 64"));
  EXPECT_TRUE(Contains(why(fp8, make_problem("p", 256, 4096, 4096, DType::fp8_e4m3, Layout::TN)), "fp8 weights"));
  EXPECT_EQ(shared_bytes(plain) - shared_bytes(fp8), 8 * (128 * 128 - 8 * 1024));
  // Q8_0: a scale per 32, so K a multiple of 64 will do; 2 blocks of 4096 bytes and 2 x 256 bytes of scales, padded
  // to 9 KB (8 such stages beside the A tiles would not fit: 6).
  Config q8 = c;
  q8.weights = Weights::q8_0, q8.stages = 6;
  EXPECT_EQ(infeasible(q8, make_problem("p", 256, 4096, 4160, DType::bf16, Layout::TN)), std::nullopt);
  EXPECT_TRUE(Contains(why(q8, make_problem("p", 256, 4096, 4128, DType::bf16, Layout::TN)), "multiple of 64"));
  plain.stages = 6;
  EXPECT_EQ(shared_bytes(plain) - shared_bytes(q8), 6 * (128 * 128 - 9 * 1024));
}

// The packed arms' rule and linear's: feasible in both orientations at every token count of the decode and prefill
// range, never three consumers, up to 64 tokens the streaming tile (256 weight rows, the tokens' width, stream-K
// pieces that fill the SMs), 256 x 128 tiles once they fill the SMs, and in nn.Linear's orientation the same tile as
// the column-major form with the operands swapped: beside a consumer's full 128 accumulators staged (the direct
// store's scattered stores spill there), elsewhere the direct store.
TEST(Sm90Packed, TheRuleIsFeasibleInBothOrientations) {
  const Limits limits;
  for (Weights w : {Weights::int4_g128, Weights::int4_g32, Weights::q8_0, Weights::fp8})
    for (auto [F, K] : {std::pair<int64_t, int64_t>{12288, 4096}, {4096, 14336}, {28672, 8192}, {320, 512}})
      for (int64_t T : {1, 16, 17, 64, 65, 128, 300, 2048, 8192}) {
        SCOPED_TRACE(std::to_string(T) + " tokens on " + std::to_string(F) + " x " + std::to_string(K));
        const Problem col = make_problem("col", T, F, K, DType::bf16, Layout::TN);
        const Problem lin = make_problem("lin", F, T, K, DType::bf16, Layout::TN);
        const Config c = packed_rule(col, limits, w, false);
        const Config l = packed_rule(lin, limits, w, true);
        EXPECT_EQ(infeasible(c, col, limits), std::nullopt) << to_string(c);
        EXPECT_EQ(infeasible(l, lin, limits), std::nullopt) << to_string(l);
        EXPECT_LE(c.consumers, 2);
        EXPECT_TRUE(l.swap && !c.swap && l.weights == w && c.weights == w);
        // The same tile, staged where the direct store would spill beside 128 accumulators.
        EXPECT_EQ(std::tie(l.block_m, l.block_n, l.consumers), std::tie(c.block_m, c.block_n, c.consumers));
        EXPECT_EQ(l.store, accumulator_registers(c) >= 128 ? Store::staged : Store::direct) << to_string(l);
        if (T <= 64) {
          EXPECT_EQ(std::tie(c.block_m, c.block_n, c.consumers, c.store), std::make_tuple(int((T + 7) / 8 * 8), 256, 2, Store::direct));
          EXPECT_NE(std::ranges::find(ring_depths(), c.stages), ring_depths().end()) << to_string(c);  // in the tuner's space
          const int64_t tiles = tile_count(col, c.block_m, c.block_n);
          EXPECT_TRUE(c.split == 8 || tiles * c.split >= limits.sm_count) << to_string(c);
          EXPECT_TRUE(c.split == 1 || tiles * (c.split - 1) < limits.sm_count) << to_string(c);
        } else {
          EXPECT_NE(c.block_n, 256) << to_string(c);
        }
        if (T >= 256 && tile_count(col, 256, 128) >= limits.sm_count)
          EXPECT_EQ(std::tie(c.block_m, c.block_n, c.split), std::make_tuple(256, 128, 1)) << to_string(c);
      }
  EXPECT_TRUE(Contains(error_of([&] {
                         packed_rule(make_problem("p", 64, 4096, 4096, DType::fp8_e4m3, Layout::TN), limits,
                                     Weights::int4_g128, false);
                       }),
                       "not fp8"));
}

}  // namespace
}  // namespace tilewise::sm90
