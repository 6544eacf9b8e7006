// The sm90 kernel against the fp32 reference over a grid of configurations x shapes: every input type and A
// layout, tight and padded strides, edge tiles (M, N, K not multiples of the tile), M = 1, a single short k-tile,
// and grids with more tiles than SMs (the persistent loop). Stream-K configurations meet every case of its work
// plan there: pieces that do not divide a tile's k-tiles, fewer k-tiles than pieces (empty runs), a tile cut over
// three CTAs, whole tiles followed by streamed ones, a remainder streamed with the last whole wave (1088x2048x256).
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/arm.hpp"
#include "core/error.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"
#include "arm_bench.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"

namespace tilewise::bench {
namespace {

struct Shape {
  int64_t M, N, K;
};

const Shape kShapes[] = {{512, 512, 512}, {200, 136, 328}, {1, 4096, 4096}, {8, 256, 64},
                         {384, 384, 16},  {4096, 2048, 1024}, {3000, 1000, 700}, {1088, 2048, 256}};

const char* kConfigs[] = {
    "block_m=256,block_n=128,stages=4,consumers=2,raster=m,group=8,store=direct",
    "block_m=256,block_n=128,stages=3,consumers=2,raster=n,group=4,store=tma",
    "block_m=128,block_n=128,stages=5,consumers=1,raster=m,group=1,store=tma",
    "block_m=128,block_n=256,stages=4,consumers=2,raster=n,group=16,store=direct",
    "block_m=64,block_n=64,stages=6,consumers=1,raster=m,group=8,store=direct",
    "block_m=16,block_n=64,stages=8,consumers=1,raster=m,group=8,store=direct",
    "block_m=192,block_n=128,stages=4,consumers=2,raster=m,group=8,store=tma",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=m,group=8,store=tma,schedule=pingpong",
    "block_m=256,block_n=64,stages=4,consumers=2,raster=n,group=4,store=direct,schedule=pingpong,cluster=2x1",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=m,group=8,store=tma,cluster=2x1",
    "block_m=256,block_n=128,stages=3,consumers=2,raster=m,group=8,store=tma,cluster=1x2",
    "block_m=128,block_n=128,stages=4,consumers=2,raster=n,group=8,store=tma,schedule=pingpong,cluster=1x2",
    "block_m=256,block_n=128,stages=4,consumers=2,raster=m,group=8,store=tma_ring",
    "block_m=192,block_n=64,stages=4,consumers=2,raster=n,group=4,store=tma_ring,schedule=pingpong,cluster=2x1",
    "block_m=256,block_n=128,stages=4,consumers=2,raster=m,group=8,store=tma_ring,split=2",
    "block_m=128,block_n=64,stages=6,consumers=1,raster=n,group=4,store=direct,split=3",
    "block_m=64,block_n=64,stages=8,consumers=1,raster=m,group=8,store=tma,split=4",
    "block_m=16,block_n=64,stages=16,consumers=1,raster=m,group=8,store=direct,split=2,pdl=1",
    "block_m=64,block_n=64,stages=12,consumers=1,raster=n,group=4,store=tma,pdl=1",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=m,group=8,store=tma,cluster=1x2,pdl=1",
    "block_m=16,block_n=64,stages=8,consumers=1,raster=m,group=8,store=direct,swap=1",
    "block_m=32,block_n=128,stages=6,consumers=2,raster=n,group=4,store=direct,split=3,swap=1,pdl=1",
    "block_m=256,block_n=128,stages=3,consumers=2,raster=m,group=8,store=staged,swap=1",
    "block_m=40,block_n=128,stages=6,consumers=1,raster=n,group=4,store=staged,split=3,swap=1",
    "block_m=96,block_n=192,stages=6,consumers=3,raster=m,group=8,store=direct,pdl=1",
    "block_m=128,block_n=192,stages=4,consumers=3,raster=n,group=4,store=tma_ring,split=3",
    "block_m=64,block_n=192,stages=5,consumers=3,raster=m,group=8,store=tma,cluster=2x1",
    "block_m=96,block_n=192,stages=5,consumers=3,raster=m,group=8,store=staged,pdl=1",
    "block_m=160,block_n=128,stages=4,consumers=2,raster=n,group=4,store=staged,split=2",
    "block_m=16,block_n=64,stages=8,consumers=1,raster=m,group=8,store=staged",
    "block_m=128,block_n=128,stages=4,consumers=2,raster=m,group=8,store=staged,schedule=pingpong,cluster=1x2",
    "block_m=80,block_n=64,stages=7,consumers=1,raster=m,group=8,store=staged,cluster=1x2,pdl=1",
    "block_m=80,block_n=64,stages=8,consumers=1,raster=n,group=4,store=direct,split=2",
};

// Runs `arm_name` on `p`; returns false when the family declines the problem or configuration.
bool run_and_check(const Problem& p, const std::string& arm_name, device::Stream& s) {
  const testkit::ArmBench bench(p, 2, 23, s.get(), 2);
  const Workbench& wb = bench.wb;
  auto arm = make_arm(arm_name);
  try {
    arm->prepare(wb);
  } catch (const Unsupported&) {
    return false;
  }
  const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
  const device::OutputError e = checked_run(wb, launch);
  EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)))
      << arm_name << ": " << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
  // A second launch on the other set must not depend on the first (persistent tiles, barrier phases).
  launch(1, s.get());
  TW_CUDA(cudaStreamSynchronize(s.get()));
  return true;
}

template <typename F>
void for_each_problem(F&& f) {
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (Layout l : {Layout::TN, Layout::NN})
      for (int64_t pad : {0, 16})
        for (const Shape& sh : kShapes)
          if (d != DType::fp8_e4m3 || l == Layout::TN) f(make_problem("sm90", sh.M, sh.N, sh.K, d, l, pad));
}

// One configuration per test, so that ctest runs each in its own process and a fault names its configuration.
class Sm90Configuration : public ::testing::TestWithParam<const char*> {};

TEST_P(Sm90Configuration, CorrectOnEveryTypeLayoutPaddingAndEdgeShape) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const sm90::Config c = sm90::parse_config(GetParam());
  std::string name = std::string("sm90:") + GetParam();
  std::replace(name.begin(), name.end(), ',', ';');
  int ran = 0;
  for_each_problem([&](const Problem& p) {
    SCOPED_TRACE(describe(p));
    const bool feasible = !sm90::infeasible(c, p);
    EXPECT_EQ(run_and_check(p, name, s), feasible);
    ran += feasible;
  });
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(Grid, Sm90Configuration, ::testing::ValuesIn(kConfigs));

// Small enough for compute-sanitizer (memcheck, racecheck): one configuration of each mechanism on an edge shape.
// Each runs exactly where the feasibility rules say it can (swapped operands: the TN shape only).
TEST(Sm90Sanitized, EachMechanismOnSmallShapes) {
  TW_REQUIRE_GPU();
  device::Stream s;
  for (const Problem& p : {make_problem("edge", 200, 136, 328, DType::bf16, Layout::NN),
                           make_problem("pad", 264, 392, 200, DType::fp16, Layout::TN, 8)}) {
    SCOPED_TRACE(describe(p));
    EXPECT_TRUE(run_and_check(p, "sm90", s));  // the first rule's choice
    for (const char* text : {"block_m=128,block_n=128,stages=6,store=tma",
                             "block_m=192,block_n=64,stages=4,store=tma_ring,schedule=pingpong,cluster=2x1",
                             "block_m=128,block_n=128,stages=4,store=direct,cluster=1x2",
                             "block_m=64,block_n=64,stages=4,consumers=1,store=tma,split=3",
                             "block_m=64,block_n=64,stages=12,consumers=1,store=tma,split=3,pdl=1",
                             "block_m=16,block_n=64,stages=8,consumers=1,store=direct,split=2,swap=1",
                             "block_m=24,block_n=128,stages=8,consumers=2,store=staged,split=2,swap=1",
                             "block_m=64,block_n=192,stages=4,consumers=3,store=tma_ring,split=2",
                             "block_m=96,block_n=128,stages=4,consumers=2,store=staged,split=3",
                             "block_m=144,block_n=128,stages=5,consumers=2,store=staged"}) {
      SCOPED_TRACE(text);
      std::string arm = std::string("sm90:") + text;
      std::replace(arm.begin(), arm.end(), ',', ';');
      EXPECT_EQ(run_and_check(p, arm, s), !sm90::infeasible(sm90::parse_config(text), p));
    }
  }
}

// Stream-K adds the partials of a tile in CTA order, so the same inputs give the same bits on every run: a last
// partial wave streamed (2560^2), and one tile cut over many CTAs, down to more CTAs than k-tiles (K = 1024 is 16
// k-tiles; at split 64 the grid of 64 CTAs leaves some empty), and 8 tiles cut over more CTAs than SMs.
TEST(Sm90StreamK, DeterministicAcrossRuns) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const std::pair<Problem, const char*> runs[] = {
      {make_problem("sk", 2560, 2560, 2560, DType::bf16, Layout::TN),
       "sm90:block_m=256;block_n=128;stages=4;consumers=2;store=tma_ring;split=3"},
      {make_problem("one_tile", 16, 32, 8192, DType::bf16, Layout::TN),
       "sm90:block_m=16;block_n=64;stages=8;consumers=1;store=direct;split=32"},
      {make_problem("few_k", 16, 16, 1024, DType::fp16, Layout::TN),
       "sm90:block_m=16;block_n=64;stages=8;consumers=1;store=direct;split=64"},
      {make_problem("eight_tiles", 100, 200, 4096, DType::bf16, Layout::TN),
       "sm90:block_m=64;block_n=64;stages=8;consumers=1;store=direct;split=32"}};
  for (const auto& [p, text] : runs) {
    SCOPED_TRACE(describe(p) + " " + text);
    testkit::ArmBench bench(p, 1, 5, s.get(), 1);
    device::Operands& ops = bench.ops;
    auto arm = make_arm(text);
    arm->prepare(bench.wb);
    std::vector<uint16_t> first(size_t(p.ldc * p.N)), again(first.size());
    for (int run = 0; run < 5; ++run) {
      ops.poison_output(0, s.get());
      arm->launch(0, s.get());
      TW_CUDA(cudaMemcpyAsync((run == 0 ? first : again).data(), ops.set(0).c.get(), first.size() * 2,
                              cudaMemcpyDeviceToHost, s.get()));
      s.sync();
      if (run > 0) ASSERT_EQ(first, again) << "run " << run << " differs from the first";
    }
    const device::OutputError e = bench.ref.compare(ops.set(0).c.get(), s.get());
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)));
  }
}

// A programmatic dependent waits for the kernel before it: GEMM 2 reads GEMM 1's output as its B (C1 is N1 x M1 with
// m contiguous, which is B2 K-major with K2 = M1), so a read before GEMM 1 finished would see the NaN poison, or a
// partly written C1. Each chain, every launch a programmatic dependent, must give the bits of the same chain
// launched plainly. GEMM 1 is long (about 0.1 ms) and GEMM 2 short, so a GEMM 2 that did not wait would run early.
TEST(Sm90Pdl, ADependentLaunchReadsTheOutputOfTheKernelBefore) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const Problem first = make_problem("first", 4096, 4096, 4096, DType::bf16, Layout::TN);
  const Problem second = make_problem("second", 64, 4096, 4096, DType::bf16, Layout::TN);
  const size_t elems = size_t(4096) * 4096;
  device::Buffer a1(elems * 2), b1(elems * 2), c1(elems * 2), a2(size_t(64) * 4096 * 2), c2(size_t(64) * 4096 * 2);
  // Bytes 0x3C, 0x3F and 0x3B make bf16 0.0115, 0.746 and 0.00285: C1 is about 35 and C2 about 410, far from any
  // overflow, so a NaN or a changed bit in C2 can only come from reading C1 early.
  TW_CUDA(cudaMemsetAsync(a1.get(), 0x3C, a1.bytes(), s.get()));
  TW_CUDA(cudaMemsetAsync(b1.get(), 0x3F, b1.bytes(), s.get()));
  TW_CUDA(cudaMemsetAsync(a2.get(), 0x3B, a2.bytes(), s.get()));
  auto chain = [&](const char* first_config, const char* second_config) {
    sm90::Gemm g1(first, sm90::parse_config(first_config), device::sm_count());
    sm90::Gemm g2(second, sm90::parse_config(second_config), device::sm_count());
    std::vector<uint16_t> out(size_t(64) * 4096);
    TW_CUDA(cudaMemsetAsync(c1.get(), 0xFF, c1.bytes(), s.get()));  // NaN
    TW_CUDA(cudaMemsetAsync(c2.get(), 0xFF, c2.bytes(), s.get()));
    g1.run(a1.get(), b1.get(), c1.get(), s.get());
    g2.run(a2.get(), c1.get(), c2.get(), s.get());
    TW_CUDA(cudaMemcpyAsync(out.data(), c2.get(), out.size() * 2, cudaMemcpyDeviceToHost, s.get()));
    s.sync();
    return out;
  };
  const std::vector<uint16_t> plain = chain("block_m=256,block_n=128,stages=4,consumers=2,store=tma_ring",
                                            "block_m=64,block_n=64,stages=8,consumers=1,store=direct,split=4");
  for (uint16_t v : plain) ASSERT_NE(v & 0x7F80, 0x7F80) << "the plain chain left a NaN or infinity";
  for (const auto& [c1_config, c2_config] :
       {std::pair{"block_m=256,block_n=128,stages=4,consumers=2,store=tma_ring,pdl=1",
                  "block_m=64,block_n=64,stages=8,consumers=1,store=direct,split=4,pdl=1"},
        std::pair{"block_m=256,block_n=128,stages=4,consumers=2,store=tma_ring,pdl=1",
                  "block_m=64,block_n=64,stages=12,consumers=1,store=tma,pdl=1"}}) {
    SCOPED_TRACE(std::string(c1_config) + " then " + c2_config);
    EXPECT_EQ(chain(c1_config, c2_config), plain);
  }
}

TEST(Sm90FirstRule, CorrectWhereverTmaCanLoadTheOperands) {
  TW_REQUIRE_GPU();
  device::Stream s;
  for_each_problem([&](const Problem& p) {
    SCOPED_TRACE(describe(p));
    bool expressible = true;
    try {
      sm90::require_tma_expressible(p);
    } catch (const Unsupported&) {
      expressible = false;
    }
    EXPECT_EQ(run_and_check(p, "sm90", s), expressible);
  });
}

// The widths fitted to whole waves, with the staged store, where the rule takes them: two consumers' 128-row tiles
// (144-200 wide) under the shipped constants, and one consumer's 64-row tiles (72-120 wide), unrated there but timed
// by sm90:sweep, as the rule would take them once rated. Each on one whole wave, a last tile cut by M, two waves or
// an odd K, fp16 and a padded ldc.
TEST(Sm90FirstRule, FittedWidthsMatchTheReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  sm90::RuleParams one_consumer_rated;
  one_consumer_rated.fitted_one_consumer_rate = 0.9;
  struct Kind {
    sm90::RuleParams params;
    int consumers;
    std::vector<Problem> problems;
  };
  const Kind kinds[] = {
      {{}, 2, {make_problem("sq1536", 1536, 1536, 1536, DType::bf16, Layout::TN),
               make_problem("cut", 1528, 1536, 1000, DType::fp16, Layout::TN),
               make_problem("two_waves", 2560, 2560, 200, DType::bf16, Layout::TN),
               make_problem("pad", 1280, 1792, 1032, DType::bf16, Layout::TN, 8)}},
      {one_consumer_rated, 1, {make_problem("sq768", 768, 768, 768, DType::bf16, Layout::TN),
                               make_problem("cut", 760, 768, 1000, DType::fp16, Layout::TN),
                               make_problem("two_waves", 1536, 1024, 512, DType::bf16, Layout::TN),
                               make_problem("pad", 640, 1024, 1032, DType::bf16, Layout::TN, 8)}}};
  for (const Kind& kind : kinds)
    for (const Problem& p : kind.problems) {
      SCOPED_TRACE(describe(p));
      const sm90::Config c = sm90::first_rule(p, {}, kind.params);
      ASSERT_TRUE(sm90::is_fitted_width(c.block_m, c.swap) && c.consumers == kind.consumers &&
                  c.store == sm90::Store::staged)
          << sm90::to_string(c);
      std::string arm = "sm90:" + sm90::to_string(c);  // the configuration itself: `sm90` runs the shipped rule
      std::replace(arm.begin(), arm.end(), ',', ';');
      EXPECT_TRUE(run_and_check(p, arm, s));
    }
}

}  // namespace
}  // namespace tilewise::bench
