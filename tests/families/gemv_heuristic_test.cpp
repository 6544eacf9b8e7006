// The gemv default (src/families/gemv/heuristic.cpp): which engine and setting each rule takes, and that every
// decode and M <= 16 llm24 shape gets a feasible one. No GPU.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv_problems.hpp"

namespace tilewise::gemv {
namespace {

TEST(GemvHeuristic, EachRuleTakesTheSettingItWasMeasuredFasterWith) {
  Problem odd_lda = decode(2, 64, 64, DType::fp8_e4m3);
  odd_lda.lda = 72;  // rows of fp8 x not 16 bytes apart: the mma engine cannot take them
  // The default takes mma where it can and falls back to fma where it cannot.
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::bf16).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::bf16).engine, Engine::fma);  // M = 1 measured no faster
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::q8_0).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::q8_0).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::q8_0, 132, Engine::fma).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(16, 12288, 4096), Format::int4_g128).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::int4_g128).engine, Engine::mma);  // measured faster
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::int4_g32).engine, Engine::fma);  // the mma engine cannot
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::fp8).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::fp8).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(1, 12288, 4096, DType::fp8_e4m3), Format::fp8).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(1, 12288, 4096, DType::fp8_e4m3), Format::fp8).hint, Hint::prefetch_256);
  EXPECT_EQ(default_config(decode(4, 12288, 4096, DType::fp8_e4m3), Format::fp8).hint, Hint::no_allocate);  // M = 1 only
  // fp8 x at M = 1: K's steps in turns where the split is over the whole CTA (N = 12288: 768 blocks of 16 columns),
  // not where it is over 4 of its 8 warps (N = 28672).
  EXPECT_EQ(to_string(default_config(decode(1, 12288, 4096, DType::fp8_e4m3), Format::fp8)),
            "m=1,w=fp8,x=fp8,engine=mma,threads=256,cols=16,ksplit=8,unroll=4,hint=pf256,persistent=0,pdl=0,interleave=1");
  EXPECT_FALSE(default_config(decode(1, 28672, 8192, DType::fp8_e4m3), Format::fp8).interleave);
  EXPECT_FALSE(default_config(decode(4, 12288, 4096, DType::fp8_e4m3), Format::fp8).interleave);
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::int4_g128).hint, Hint::no_allocate);
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::fp8, 132, Engine::mma).hint, Hint::no_allocate);  // fp8 x only
  EXPECT_EQ(default_config(odd_lda, Format::fp8).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::bf16, 132, Engine::fma).engine, Engine::fma);
  EXPECT_EQ(to_string(default_config(decode(1, 12288, 4096), Format::bf16, 132, Engine::fma)),
            "m=1,w=bf16,x=bf16,engine=fma,threads=256,cols=2,ksplit=2,unroll=2,hint=na,persistent=0,pdl=1");
  EXPECT_FALSE(default_config(decode(1, 12288, 4096), Format::q8_0).pdl);  // PDL only where it measured faster
  EXPECT_FALSE(default_config(decode(1, 12288, 4096, DType::fp8_e4m3), Format::bf16).pdl);
  EXPECT_TRUE(default_config(decode(16, 12288, 4096), Format::bf16).pdl);  // the mma engine with 16-bit x
  EXPECT_EQ(default_config(decode(16, 12288, 4096), Format::bf16).ksplit, 4);
  EXPECT_EQ(default_config(decode(16, 4096, 16384), Format::bf16).ksplit, 8);
  EXPECT_FALSE(default_config(decode(16, 12288, 4096, DType::fp8_e4m3), Format::fp8).pdl);
  EXPECT_FALSE(default_config(decode(16, 8192, 4096), Format::q8_0).pdl);
  EXPECT_EQ(default_config(decode(16, 4096, 16384), Format::int4_g128).ksplit, 4);  // int4 and fp8: at every K
  EXPECT_TRUE(default_config(decode(16, 4096, 16384), Format::fp8).pdl);
  EXPECT_FALSE(default_config(decode(4, 12288, 4096), Format::fp8).pdl);  // measured at M = 16 only
  // int4 at M = 1..8: one tile a CTA, K over its warps, 8 of them while the grid's warps fit one wave (N <= 4224).
  EXPECT_EQ(to_string(default_config(decode(1, 14336, 4096), Format::int4_g128)),
            "m=1,w=int4g128,x=bf16,engine=mma,threads=128,cols=16,ksplit=4,unroll=2,hint=na,persistent=0,pdl=1");
  EXPECT_EQ(to_string(default_config(decode(1, 4096, 14336, DType::fp16), Format::int4_g128)),
            "m=1,w=int4g128,x=fp16,engine=mma,threads=256,cols=16,ksplit=8,unroll=2,hint=na,persistent=0,pdl=1");
  EXPECT_EQ(default_config(decode(1, 4224, 4096), Format::int4_g128).threads, 256);
  EXPECT_EQ(default_config(decode(1, 4240, 4096), Format::int4_g128).threads, 128);
  // ... and two tiles a warp (3 CTAs an SM) where that grid fills as much of its last wave as this one (16 warps an
  // SM) or more: N = 12288, 384 blocks in one wave against 768 in two of 528; N = 24576, 768 blocks in two waves of
  // 396 against 1536 in three of 528 (0.97 either way); not N = 14336 (448 blocks: 0.57 against 0.85).
  for (int m : {1, 8})
    EXPECT_EQ(to_string(default_config(decode(m, 12288, 4096), Format::int4_g128)),
              "m=" + std::to_string(m) +
                  ",w=int4g128,x=bf16,engine=mma,threads=128,cols=32,ksplit=4,unroll=2,hint=na,persistent=0,pdl=1");
  EXPECT_EQ(default_config(decode(4, 24576, 4096), Format::int4_g128).cols, 32);
  EXPECT_EQ(default_config(decode(4, 4096, 4096), Format::int4_g128).cols, 16);
  // M > 8, int4 and fp8 weights: the widest tile a warp whose grid gives each SM about two blocks (1.9), else the
  // rule every format takes.
  const auto wide = [](int cols, int unroll) {
    return "engine=mma,threads=128,cols=" + std::to_string(cols) + ",ksplit=4,unroll=" + std::to_string(unroll) +
           ",hint=na,persistent=0,pdl=1";
  };
  EXPECT_EQ(to_string(default_config(decode(16, 16384, 4096), Format::int4_g128)),
            "m=16,w=int4g128,x=bf16," + wide(64, 1));
  EXPECT_EQ(to_string(default_config(decode(16, 12288, 4096), Format::int4_g128)),
            "m=16,w=int4g128,x=bf16," + wide(32, 1));
  EXPECT_EQ(default_config(decode(9, 8192, 4096), Format::int4_g128).cols, 32);  // 256 blocks of 32 columns
  EXPECT_EQ(default_config(decode(16, 8000, 4096), Format::int4_g128).cols, 16);  // 250 blocks, under 1.9 x 132
  // ... and below that, 4-warp CTAs of 16 columns (3 an SM) where their grid fills more of its last wave than 8-warp
  // CTAs of 32 (1 an SM): N = 5120, 320 blocks in one wave of 396 (0.81) against 160 in two of 132 (0.61); N = 6144
  // 0.97 against 0.73. Not N = 4096 (0.65 against 0.97), 7168 (0.57 against 0.85) nor 3072 (0.48 against 0.73).
  for (auto [n, k, threads] : {std::tuple{5120, 5120, 128}, std::tuple{5120, 13824, 128}, std::tuple{6144, 4096, 128},
                               std::tuple{4096, 4096, 256}, std::tuple{7168, 5120, 256}, std::tuple{3072, 8192, 256}})
    for (int m : {9, 12, 16}) {
      const Config c = default_config(decode(m, n, k), Format::int4_g128);
      EXPECT_EQ(c.threads, threads) << m << " x " << n;
      EXPECT_EQ(cta_cols(c), threads / 8) << m << " x " << n;
    }
  Problem nn = make_problem("nn", 16, 5120, 5120, DType::bf16, Layout::NN);  // M-major x: not measured, so not taken
  nn.lda = 16;
  EXPECT_EQ(default_config(nn, Format::int4_g128).threads, 256);
  EXPECT_EQ(to_string(default_config(decode(16, 12288, 4096), Format::fp8)),
            "m=16,w=fp8,x=bf16," + wide(32, 2));
  EXPECT_EQ(default_config(decode(16, 16384, 4096), Format::fp8).cols, 32);  // fp8 takes two tiles at most
  EXPECT_EQ(default_config(decode(16, 4096, 16384), Format::fp8).cols, 16);
  // 16-bit and Q8_0 weights at M > 8: two tiles a warp where that grid (3 CTAs an SM) fills as much of its last wave
  // as the rule's (2 CTAs an SM), or more: N = 12288 on 132 SMs, 384 blocks in one wave against bf16's 384 in two
  // (0.97 against 0.73) and Q8_0's 768 of 16 columns in three (0.97 either way).
  EXPECT_EQ(to_string(default_config(decode(16, 12288, 4096), Format::q8_0)),
            "m=16,w=q8_0,x=bf16," + wide(32, 2));
  EXPECT_EQ(default_config(decode(16, 8192, 4096), Format::q8_0).cols, 16);
  // Q8_0's one-tile kernel: two pieces a row in flight from M = 12 (four took 130 registers at M = 14), four below.
  for (int m : {12, 14, 16}) EXPECT_EQ(default_config(decode(m, 8192, 4096), Format::q8_0).unroll, 2) << m;
  EXPECT_EQ(default_config(decode(9, 8192, 4096), Format::q8_0).unroll, 4);
  EXPECT_EQ(default_config(decode(8, 12288, 4096), Format::fp8).cols, 16);    // M <= 8 reads half the x or less
  // 16-bit weights there take the K split's steps in turns at M = 16, and at M = 10..14 over CTAs of 5 warps (4 would
  // fit 4 CTAs an SM); M = 9 and 15 keep 4 warps in slices. Q8_0 (above) takes none of it.
  EXPECT_EQ(to_string(default_config(decode(16, 12288, 4096), Format::bf16)),
            "m=16,w=bf16,x=bf16," + wide(32, 2) + ",interleave=1");
  for (int m = 9; m <= 15; ++m) {
    const Config c = default_config(decode(m, 12288, 4096, DType::fp16), Format::fp16);
    const bool five = m >= 10 && m <= 14;
    EXPECT_EQ(c.cols, 32) << m;
    EXPECT_EQ(c.threads, five ? 160 : 128) << m;
    EXPECT_EQ(c.ksplit, five ? 5 : 4) << m;
    EXPECT_EQ(c.interleave, five) << m;
  }
  // M-major x: 5 warps in turns from M = 10 (4-warp CTAs fit 4 an SM there up to M = 16).
  for (int m = 9; m <= 16; ++m) {
    Problem p = make_problem("nn", m, 12288, 4096, DType::bf16, Layout::NN);
    p.lda = (m + 7) / 8 * 8;  // x's columns 16-byte aligned
    const Config nn = default_config(p, Format::bf16);
    EXPECT_EQ(nn.cols, 32) << m;
    EXPECT_EQ(nn.threads, m >= 10 ? 160 : 128) << m;
    EXPECT_EQ(nn.interleave, m >= 10) << m;
  }
  EXPECT_FALSE(default_config(decode(8, 12288, 4096), Format::int4_g128).interleave);  // two tiles, M <= 8
  EXPECT_FALSE(default_config(decode(16, 8192, 4096), Format::bf16).interleave);      // one tile a warp
  for (int64_t n : {8192, 16384})  // 256 and 512 blocks: whole waves of 2 CTAs an SM
    EXPECT_EQ(default_config(decode(16, n, 4096), Format::bf16).cols, 16) << n;
  EXPECT_EQ(default_config(decode(16, 12288, 4096), Format::bf16, 114).cols, 16);  // two waves either way on 114
  EXPECT_EQ(default_config(decode(8, 12288, 4096), Format::bf16).cols, 16);
  EXPECT_EQ(default_config(decode(9, 4096, 16384), Format::int4_g128).threads, 256);
  EXPECT_EQ(default_config(decode(1, 2048, 4096), Format::int4_g128).engine, Engine::fma);  // narrow: the fma kernel
  EXPECT_EQ(default_config(decode(1, 12288, 4096), Format::int4_g128, 132, Engine::fma).threads, 128);
  EXPECT_EQ(default_config(decode(16, 12288, 4096, DType::fp8_e4m3), Format::fp8).unroll, 2);
  // Narrow N (fewer 16-column tiles than SMs): the FMA kernel, whatever M.
  EXPECT_EQ(default_config(decode(16, 128, 4096), Format::q8_0).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(16, 2111, 4096), Format::bf16).engine, Engine::fma);
  EXPECT_EQ(default_config(decode(16, 2112, 4096), Format::bf16).engine, Engine::mma);
  EXPECT_EQ(default_config(decode(16, 4096, 16384), Format::fp8).unroll, 4);
  EXPECT_EQ(default_config(decode(1, 4096, 4096), Format::int4_g128, 132, Engine::fma).ksplit, 4);  // 128 threads'
  EXPECT_EQ(default_config(decode(2, 12288, 4096), Format::int4_g128, 132, Engine::fma).threads, 256);
}

// An engine's default where it takes the problem, nothing where not: the mma-order engine reads int4 at M = 1..8 with
// x (2 bytes a token and K) and its 16 warps' sums (8 KB) within the SM's 227 KB of shared memory.
TEST(GemvHeuristic, AnEnginesDefaultOnlyWhereItTakesTheProblem) {
  const auto order = [](int64_t M, int64_t N, int64_t K, Format f) {
    return default_config_on(decode(M, N, K), f, Engine::mma_order);
  };
  ASSERT_TRUE(order(8, 4096, 14016, Format::int4_g32));
  EXPECT_EQ(order(8, 4096, 14016, Format::int4_g32)->engine, Engine::mma_order);
  EXPECT_EQ(dynamic_shared_bytes(*order(8, 4096, 14016, Format::int4_g32), 14016), kMaxSharedBytes);
  EXPECT_FALSE(order(8, 4096, 14080, Format::int4_g32));
  EXPECT_TRUE(order(8, 4096, 13952, Format::int4_g128));  // K in whole groups of 128
  EXPECT_FALSE(order(8, 4096, 14080, Format::int4_g128));
  EXPECT_TRUE(order(7, 4096, 14336, Format::int4_g32));
  EXPECT_FALSE(order(9, 4096, 4096, Format::int4_g128));
  EXPECT_FALSE(order(1, 4096, 4096, Format::q8_0));
  EXPECT_FALSE(order(1, 4032 + 32, 4096, Format::int4_g128));  // N not in whole blocks of 64
  EXPECT_EQ(default_config_on(decode(1, 12288, 4096), Format::int4_g128, Engine::mma)->engine, Engine::mma);
}

// Every decode shape and every M=16 shape of llm24 has a feasible default in every format and activation type.
TEST(GemvHeuristic, DefaultIsFeasibleOnTheDecodeShapes) {
  std::vector<SuiteEntry> entries = load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt").entries;
  for (const SuiteEntry& e : load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/llm24.txt").entries)
    if (e.M <= 16) entries.push_back(e);
  for (const SuiteEntry& e : entries)
    for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
      for (Format f : {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8}) {
        const Problem p = make_problem(e.name, e.M, e.N, e.K, d, Layout::TN);
        SCOPED_TRACE(describe(p) + " " + std::string(to_string(f)));
        const Config c = default_config(p, f);
        EXPECT_EQ(infeasible(c, p), "");
        // At least four CTAs per SM whenever N allows it (a CTA has at most 8 warps splitting K), except the
        // settings measured faster at M = 1: two warps on each pair of columns, two chunks at a time.
        const bool m1_split = c.engine == Engine::fma && p.M == 1 &&
                              (f == Format::bf16 || f == Format::fp16 || f == Format::q8_0);
        // The mma engine with 16-bit x, on 16-bit weights (and int4 and fp8 at M > 8), cuts K over at most four
        // warps (16-bit weights: up to K = 8192) and launches with PDL.
        const bool sixteen_bit = f == Format::bf16 || f == Format::fp16;
        const bool mma_chained = c.engine == Engine::mma && d != DType::fp8_e4m3 &&
                                 (sixteen_bit || ((f == Format::int4_g128 || f == Format::fp8) && p.M > 8));
        const bool split4 = mma_chained && (!sixteen_bit || p.K <= 8192);
        // int4 g128 at M = 1..8 on the mma engine: one 16-column tile a CTA, K over all its warps, PDL.
        const bool int4_m1 = c.engine == Engine::mma && p.M <= 8 && f == Format::int4_g128;
        // Two or four tiles a warp: CTAs of 4 warps cutting K in 4, launched with PDL (their grids are one block of
        // 32 or 64 columns an SM or more, below the four CTAs an SM asked of the rest).
        const bool wide = c.engine == Engine::mma && c.cols > 16;
        if (wide) EXPECT_TRUE(c.threads == 128 && c.ksplit == 4 && c.pdl) << to_string(c);
        else if (mma_chained) EXPECT_TRUE(c.pdl && (!split4 || c.ksplit <= 4)) << to_string(c);
        else if (int4_m1) EXPECT_TRUE(c.pdl && c.ksplit == c.threads / 32 && c.unroll == 2) << to_string(c);
        else if (c.engine == Engine::mma) EXPECT_FALSE(c.pdl) << to_string(c);
        if (int4_m1) EXPECT_GE((p.N + 15) / 16, 132) << to_string(c);  // a tile for every SM, else the fma kernel
        else if (m1_split) EXPECT_TRUE(c.ksplit == 2 && c.unroll == 2 && c.cols == 2) << to_string(c);
        else if (!wide && p.N >= 4 * 132 * c.cols && !split4)
          EXPECT_GE((p.N + cta_cols(c) - 1) / cta_cols(c), 4 * 132) << to_string(c);
      }
  EXPECT_THROW(default_config(decode(32, 64, 64), Format::bf16), Unsupported);
}

// Resident warps count the compiled kernel's registers where given, the estimate's otherwise: the mma-order engine
// at one token of 12288 x 4096 in one-tile CTAs of 256 threads (384 of them) holds 4 CTAs an SM by ptxas's 56
// registers, 2 by the estimate's 102; the grid's share (384 / 132) caps the first.
TEST(GemvHeuristic, ResidentWarpsFromTheCompiledRegistersWhereKnown) {
  const Problem p = make_problem("lin", 1, 12288, 4096, DType::bf16, Layout::TN);
  Config c = default_config(p, Format::int4_g128, 132, Engine::mma_order);
  c.threads = 256, c.ksplit = 4, c.unroll = 2, c.persistent = false;
  ASSERT_EQ(register_estimate(c), 102);
  ASSERT_EQ(block_threads(c), 256);
  ASSERT_EQ(p.N / cta_cols(c), 384);
  EXPECT_DOUBLE_EQ(resident_warps(c, p, 132, 56), 384.0 / 132 * 8);
  EXPECT_DOUBLE_EQ(resident_warps(c, p, 132, 102), 2 * 8);
  EXPECT_DOUBLE_EQ(resident_warps(c, p, 132), resident_warps(c, p, 132, register_estimate(c)));
  EXPECT_DOUBLE_EQ(resident_warps(c, p, 132, -1), resident_warps(c, p, 132));
}

}  // namespace
}  // namespace tilewise::gemv
