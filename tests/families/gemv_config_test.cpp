// The gemv configuration as a value (canonical string, JSON, equality) and its feasibility rules. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <tuple>
#include <nlohmann/json.hpp>

#include "core/suite.hpp"
#include "expect_error.hpp"
#include "families/gemv_problems.hpp"
#include "families/gemv_wave_cases.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/registry.hpp"
#include "jit/cache.hpp"

namespace tilewise::gemv {
namespace {

using testkit::Contains;
using testkit::error_of;

Config sample() {
  Config c;
  c.m = 4;
  c.weights = Format::int4_g128;
  c.act = DType::fp16;
  c.threads = 128;
  c.cols = 4;
  c.ksplit = 2;
  c.unroll = 2;
  c.hint = Hint::evict_first;
  c.persistent = true;
  return c;
}

TEST(GemvConfig, CanonicalStringAndJsonRoundTrip) {
  const Config c = sample();
  EXPECT_EQ(to_string(c),
            "m=4,w=int4g128,x=fp16,engine=fma,threads=128,cols=4,ksplit=2,unroll=2,hint=ef,persistent=1,pdl=0");
  EXPECT_EQ(parse_config(to_string(c)), c);
  // Written before the mma engine and PDL existed: no engine or pdl field, so fma without PDL.
  EXPECT_EQ(parse_config("m=4,w=int4g128,x=fp16,threads=128,cols=4,ksplit=2,unroll=2,hint=ef,persistent=1"), c);
  Config pdl = c;
  pdl.pdl = true;
  EXPECT_EQ(parse_config(to_string(pdl)), pdl);
  EXPECT_TRUE(testkit::Contains(to_string(pdl), ",pdl=1"));
  EXPECT_TRUE(nlohmann::json(pdl).at("pdl").get<bool>());
  Config ahead = c;  // printed only where set, so every configuration written before it keeps its text
  ahead.prefetch = true;
  EXPECT_EQ(to_string(ahead), to_string(c) + ",prefetch=1");
  EXPECT_EQ(parse_config(to_string(ahead)), ahead);
  EXPECT_TRUE(nlohmann::json(ahead).at("prefetch").get<bool>());
  EXPECT_TRUE(Contains(describe(ahead), "unroll 2 a step ahead"));
  Config turns = c;  // printed only where set, like prefetch
  turns.engine = Engine::mma, turns.cols = 16, turns.interleave = true;
  EXPECT_EQ(to_string(turns), "m=4,w=int4g128,x=fp16,engine=mma,threads=128,cols=16,ksplit=2,unroll=2,hint=ef,"
                              "persistent=1,pdl=0,interleave=1");
  EXPECT_EQ(parse_config(to_string(turns)), turns);
  EXPECT_TRUE(nlohmann::json(turns).at("interleave").get<bool>());
  EXPECT_TRUE(Contains(describe(turns), "K split 2 interleaved"));
  EXPECT_THROW(parse_config(to_string(c) + ",interleave=2"), Error);
  Config nn = c;  // M-major x: printed only for NN, like prefetch
  nn.layout = Layout::NN;
  EXPECT_EQ(to_string(nn), to_string(c) + ",layout=NN");
  EXPECT_EQ(parse_config(to_string(nn)), nn);
  EXPECT_EQ(nlohmann::json(nn).at("layout"), "NN");
  EXPECT_TRUE(Contains(describe(nn), "fp16 M-major x"));
  Config mma = c;
  mma.engine = Engine::mma;
  EXPECT_EQ(parse_config(to_string(mma)), mma);
  EXPECT_TRUE(testkit::Contains(to_string(mma), ",engine=mma,"));
  const nlohmann::json j = c;
  EXPECT_EQ(j.at("family"), "gemv");
  EXPECT_EQ(j.at("group"), 128);
  EXPECT_EQ(j.get<Config>(), c);
  EXPECT_NE(parse_config(to_string(Config{})), c);
  for (Format f : {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8})
    EXPECT_EQ(parse_format(to_string(f)), f);
  for (Hint h : {Hint::none, Hint::nc, Hint::no_allocate, Hint::evict_first, Hint::prefetch_256})
    EXPECT_EQ(parse_hint(to_string(h)), h);
}

TEST(GemvConfig, BadTextIsAnErrorNamingTheField) {
  const std::string good = to_string(sample());
  EXPECT_TRUE(Contains(error_of([] { parse_config("m=1"); }), "gemv config 'm=1': w is required"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(good + ",m=2"); }), "m is given twice"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(good + ",tile=3"); }), "unknown field 'tile'"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(good + ","); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("m"); }), "not key=value"));
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("cols=4", "cols=x4")); }), "cols=x4 is not an integer"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("w=int4g128", "w=int3")); }), "w=int3 is not one of bf16, fp16, q8_0, int4g32, int4g128, fp8"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("hint=ef", "hint=fast")); }), "hint=fast is not one of none, nc, na, ef, pf256"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("x=fp16", "x=fp32")); }), "x=fp32 is refused: unknown dtype 'fp32'"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("persistent=1", "persistent=yes")); }), "persistent=yes is not one of 0, 1"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("engine=fma", "engine=wmma")); }), "engine=wmma is not one of fma, mma, bulk, mma-order"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(with("pdl=0", "pdl=2")); }), "pdl=2 is not one of 0, 1"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(good + ",layout=TT"); }), "layout=TT is refused: unknown layout 'TT'"));
}

// The problem's own B is read as stored in the format of its type; every other format is a packed copy.
TEST(GemvConfig, EachProblemTypeHasItsOwnWeightFormat) {
  EXPECT_EQ(native_format(DType::bf16), Format::bf16);
  EXPECT_EQ(native_format(DType::fp16), Format::fp16);
  EXPECT_EQ(native_format(DType::fp8_e4m3), Format::fp8);
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (Format f : {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8})
      EXPECT_EQ(is_native(f, d), f == native_format(d)) << to_string(f);
  EXPECT_FALSE(is_native(Format::fp16, DType::bf16));
  EXPECT_FALSE(is_native(Format::fp8, DType::bf16));  // fp8 weights packed for 16-bit x carry their scales
}

TEST(GemvConfig, FeasibilityNamesWhatIsWrong) {
  Config c;  // M = 1, bf16
  EXPECT_EQ(infeasible(c, decode(1, 12288, 4096)), "");
  // x's layout is the problem's: a configuration for one does not run the other. M-major x is read 8 tokens of one
  // k at a time, so its lda must be a multiple of 8 (every engine).
  Problem nn = make_problem("nn", 4, 64, 64, DType::bf16, Layout::NN);
  nn.lda += 3;
  Config nn_c = c;
  nn_c.m = 4;
  EXPECT_TRUE(Contains(infeasible(nn_c, nn), "reads x as layout TN does, the problem is NN"));
  nn_c.layout = Layout::NN;
  EXPECT_EQ(nn.lda, 7);
  EXPECT_TRUE(Contains(infeasible(nn_c, nn), "lda = 7 is not a multiple of 8: x's columns (NN)"));
  Config nn_mma = nn_c;
  nn_mma.engine = Engine::mma, nn_mma.cols = 16;
  EXPECT_TRUE(Contains(infeasible(nn_mma, nn), "lda = 7 is not a multiple of 8"));
  Config nn_fp8 = nn_c;
  nn_fp8.act = DType::fp8_e4m3, nn_fp8.weights = Format::fp8;
  Problem nn_fp8_p = nn;
  nn_fp8_p.dtype = DType::fp8_e4m3;
  EXPECT_TRUE(Contains(infeasible(nn_fp8, nn_fp8_p), "must be 16-bit"));
  nn.lda = 8;
  EXPECT_EQ(infeasible(nn_c, nn), "");
  Config nn_q8 = nn_c;  // the fma engine's NN form reads the problem's own weights only
  nn_q8.weights = Format::q8_0;
  EXPECT_TRUE(Contains(infeasible(nn_q8, nn), "with the problem's own 16-bit weights, not q8_0"));
  nn_q8.engine = Engine::mma, nn_q8.cols = 16;
  EXPECT_EQ(infeasible(nn_q8, nn), "");
  Config nn_ahead = nn_c;
  nn_ahead.prefetch = true;
  EXPECT_TRUE(Contains(infeasible(nn_ahead, nn), "prefetch = 1 is for K-major x"));
  EXPECT_TRUE(Contains(infeasible(nn_c, decode(4, 64, 64)), "reads x as layout NN does, the problem is TN"));
  EXPECT_EQ(default_config(nn, Format::bf16).layout, Layout::NN);
  for (const Config& f : feasible_set(nn, Format::int4_g128)) EXPECT_EQ(f.layout, Layout::NN);
  Config m17 = c;
  m17.m = 17;
  EXPECT_TRUE(Contains(infeasible(m17, decode(17, 64, 64)), "M = 1..16"));
  EXPECT_TRUE(Contains(infeasible(c, decode(2, 64, 64)), "built for M = 1"));
  EXPECT_TRUE(Contains(infeasible(c, decode(1, 64, 64, DType::fp16)), "takes bf16 activations"));
  EXPECT_TRUE(Contains(infeasible(c, decode(1, 64, 100)), "K = 100 is not a multiple of 8"));
  Config q = c;
  q.weights = Format::q8_0;
  EXPECT_TRUE(Contains(infeasible(q, decode(1, 64, 40)), "K = 40 is not a multiple of 16"));
  q.weights = Format::int4_g128;
  EXPECT_TRUE(Contains(infeasible(q, decode(1, 64, 96)), "group of 128"));
  Config m2 = c;
  m2.m = 2;
  EXPECT_TRUE(Contains(infeasible(m2, decode(2, 64, 64, DType::bf16, 3)), "lda = 67"));  // x rows misaligned
  EXPECT_TRUE(Contains(infeasible(c, decode(1, 64, 64, DType::bf16, 3)), "ldb = 67"));   // bf16 reads B itself
  q.weights = Format::q8_0;
  EXPECT_EQ(infeasible(q, decode(1, 64, 64, DType::bf16, 3)), "");  // a packed copy has its own stride
  Config t = c;
  t.threads = 96 + 1;
  EXPECT_TRUE(Contains(infeasible(t, decode(1, 64, 64)), "threads = 97"));
  t = c, t.cols = 3;
  EXPECT_TRUE(Contains(infeasible(t, decode(1, 64, 64)), "cols = 3"));
  t = c, t.unroll = 16;
  EXPECT_TRUE(Contains(infeasible(t, decode(1, 64, 64)), "unroll = 16"));
  t = c, t.ksplit = 16;
  EXPECT_TRUE(Contains(infeasible(t, decode(1, 64, 64)), "ksplit = 16 does not divide the CTA's 8 warps"));
  t = c, t.ksplit = 0;
  EXPECT_TRUE(Contains(infeasible(t, decode(1, 64, 64)), "ksplit = 0"));
  t = c, t.threads = 160, t.ksplit = 5;  // not a power of two: any divisor of the warps
  EXPECT_EQ(infeasible(t, decode(1, 64, 64)), "");
  t.layout = Layout::NN, t.m = 8;  // but not on the fma engine's M-major kernel, where the GPU tests do not run them
  EXPECT_TRUE(Contains(infeasible(t, make_problem("nn", 8, 64, 64, DType::bf16, Layout::NN)),
                       "ksplit = 5 is not a power of two"));
  t.engine = Engine::mma, t.cols = 16;  // the mma engine takes them on either layout
  EXPECT_EQ(infeasible(t, make_problem("nn", 8, 64, 64, DType::bf16, Layout::NN)), "");
  t = c, t.m = 16, t.cols = 8, t.unroll = 8, t.threads = 1024;
  EXPECT_TRUE(Contains(infeasible(t, decode(16, 64, 64)), "registers"));
  EXPECT_THROW(require_feasible(c, decode(1, 64, 100)), Unsupported);
}

TEST(GemvConfig, TheMmaEngineNamesWhatItDoesNotTake) {
  Config c;  // M = 1, bf16 weights and activations
  c.engine = Engine::mma, c.cols = 16;
  EXPECT_EQ(infeasible(c, decode(1, 12288, 4096)), "");
  Config cols = c;
  cols.cols = 2;
  EXPECT_TRUE(Contains(infeasible(cols, decode(1, 64, 64)), "cols = 16, 32 or 64, not 2"));
  cols.cols = 32;  // two tiles a warp, each load of x feeding both
  EXPECT_EQ(infeasible(cols, decode(1, 12288, 4096)), "");
  Config big = cols;  // 16 warps x 64 columns x 16 tokens of fp32 partial sums: 64 KB of static shared memory
  big.m = 16, big.cols = 64, big.threads = 512, big.ksplit = 16;
  EXPECT_TRUE(Contains(infeasible(big, decode(16, 12288, 4096)), "65536 bytes of static shared memory, over 48 KB"));
  big.threads = 384, big.ksplit = 4;  // 12 warps: 48 KB, the most a kernel has
  EXPECT_FALSE(Contains(infeasible(big, decode(16, 12288, 4096)), "static shared memory"));
  cols.engine = Engine::bulk, cols.persistent = true, cols.stages = 4;
  EXPECT_TRUE(Contains(infeasible(cols, decode(1, 12288, 4096)), "bulk engine computes 16 columns a warp"));
  Config ahead = c;  // bf16 weights: their steps keep the tail checks
  ahead.prefetch = true;
  EXPECT_TRUE(Contains(infeasible(ahead, decode(1, 64, 64)), "int4g128 and fp8 weights, not bf16"));
  for (Format f : {Format::int4_g128, Format::fp8}) {
    ahead.weights = f;
    EXPECT_EQ(infeasible(ahead, decode(1, 12288, 4096)), "") << to_string(f);
  }
  ahead.engine = Engine::bulk, ahead.persistent = true, ahead.stages = 4, ahead.ksplit = ahead.threads / 32;
  EXPECT_TRUE(Contains(infeasible(ahead, decode(1, 12288, 4096)), "the bulk engine's producer warp streams ahead"));
  // K's steps in turns: the mma engine's, with a K split to take them.
  Config turns = c;
  turns.ksplit = 8, turns.interleave = true;
  EXPECT_EQ(infeasible(turns, decode(1, 12288, 4096)), "");
  turns.ksplit = 1;
  EXPECT_TRUE(Contains(infeasible(turns, decode(1, 12288, 4096)), "interleave = 1 takes the steps of a K split in turns"));
  turns.ksplit = 8, turns.engine = Engine::fma, turns.cols = 2;
  EXPECT_TRUE(Contains(infeasible(turns, decode(1, 12288, 4096)), "interleave = 1 is for the mma engine"));
  turns.engine = Engine::bulk, turns.cols = 16, turns.persistent = true, turns.stages = 4;
  EXPECT_TRUE(Contains(infeasible(turns, decode(1, 12288, 4096)), "interleave = 1 is for the mma engine"));
  Config fp16_weights = c;
  fp16_weights.weights = Format::fp16;
  EXPECT_TRUE(Contains(infeasible(fp16_weights, decode(1, 64, 64)), "fp16 weights only with fp16 activations"));
  // Grouped formats: each mma must sum within one group of each row, so the four lanes of a row read one group.
  Config g = c;
  g.weights = Format::int4_g32;
  EXPECT_TRUE(Contains(infeasible(g, decode(1, 64, 128)), "a group of 16 bytes"));
  for (Format grouped : {Format::q8_0, Format::int4_g128}) {
    g.weights = grouped, g.act = DType::bf16;
    EXPECT_EQ(infeasible(g, decode(1, 64, 128)), "") << to_string(grouped);
    g.act = DType::fp8_e4m3;
    EXPECT_TRUE(Contains(infeasible(g, decode(1, 64, 128, DType::fp8_e4m3)), "only with 16-bit activations"));
  }
  // fp8 weights with any activation type; fp8 activations read x 16 bytes at a time, so rows of x 16 elements apart.
  Config fp8 = c;
  fp8.weights = Format::fp8, fp8.act = DType::fp8_e4m3, fp8.m = 2;
  EXPECT_EQ(infeasible(fp8, decode(2, 64, 64, DType::fp8_e4m3)), "");
  Problem odd_lda = decode(2, 64, 64, DType::fp8_e4m3);
  odd_lda.lda = 72;
  EXPECT_TRUE(Contains(infeasible(fp8, odd_lda), "lda = 72 is not a multiple of 16"));
}

TEST(GemvConfig, TheBulkEngineNamesWhatItDoesNotTake) {
  const Problem p = decode(1, 12288, 4096);
  const Config c = default_config(p, Format::bf16, 132, Engine::bulk);
  EXPECT_EQ(to_string(c), "m=1,w=bf16,x=bf16,engine=bulk,threads=256,cols=16,ksplit=8,unroll=4,hint=na,persistent=1,pdl=0,stages=4");
  EXPECT_EQ(parse_config(to_string(c)), c);
  EXPECT_EQ(block_threads(c), 288);  // the producer warp
  // Four stages of 16 rows x (2048 + 64) bytes, the warps' sums of two tiles, eight barriers.
  EXPECT_EQ(bulk_shared_bytes(c), 4 * 16 * 2112 + 2 * 8 * 16 * 1 * 4 + 64);
  EXPECT_EQ(bulk_shared_bytes(default_config(p, Format::bf16, 132, Engine::mma)), 0);
  auto why = [&](Config v, const Problem& q) { return infeasible(v, q); };
  Config v = c;
  v.ksplit = 4;
  EXPECT_TRUE(Contains(why(v, p), "over all its 8 consumer warps: ksplit = 8, not 4"));
  v = c, v.persistent = false;
  EXPECT_TRUE(Contains(why(v, p), "persistent = 1"));
  v = c, v.stages = 1;
  EXPECT_TRUE(Contains(why(v, p), "stages = 1 is not in 2..8"));
  v = c, v.hint = Hint::prefetch_256;
  EXPECT_TRUE(Contains(why(v, p), "hint na (no cache policy) or ef (evict_first), not pf256"));
  v = c, v.threads = 1024, v.ksplit = 32, v.unroll = 1;
  EXPECT_TRUE(Contains(why(v, p), "threads = 1024"));  // 33 warps with the producer
  v = c, v.threads = 96, v.ksplit = 3;  // three consumer warps: a split the bulk engine was never run with
  EXPECT_TRUE(Contains(why(v, p), "ksplit = 3 is not a power of two"));
  v = c, v.stages = 8, v.threads = 512, v.ksplit = 16;
  EXPECT_TRUE(Contains(why(v, p), "bytes of shared memory"));
  v = c, v.unroll = 8;
  EXPECT_TRUE(Contains(why(v, p), "at most 4 units a warp"));
  EXPECT_TRUE(Contains(why(c, decode(1, 64, 4112)), "K = 4112 is not a multiple of 32: the bulk engine copies whole units"));
  Config q8 = default_config(p, Format::q8_0, 132, Engine::bulk);
  EXPECT_EQ(why(q8, p), "");
  EXPECT_TRUE(Contains(why(q8, decode(1, 64, 4128)), "K = 4128 is not a multiple of 256"));
  q8.unroll = 1, q8.threads = 128, q8.ksplit = 4;
  EXPECT_TRUE(Contains(why(q8, p), "4 warps x unroll 1 units make a stage, not a multiple of 8"));
  Config int4 = default_config(p, Format::int4_g128, 132, Engine::bulk);
  EXPECT_TRUE(Contains(why(int4, decode(1, 64, 3584)), "K = 3584 is not a multiple of 1024"));
  Config int4_g32 = c;
  int4_g32.weights = Format::int4_g32;
  EXPECT_TRUE(Contains(why(int4_g32, decode(1, 64, 4096)), "a group of 16 bytes"));
  Config fma = default_config(p, Format::bf16, 132, Engine::fma);
  fma.stages = 4;
  EXPECT_TRUE(Contains(why(fma, p), "stages = 4 is for the bulk engine"));
  EXPECT_TRUE(Contains(error_of([&] { parse_config(to_string(c) + ",stages=3"); }), "stages is given twice"));
  // Every M and format it takes has a default that fits its registers (M = 16 int4 takes fewer units a stage).
  for (int m = 1; m <= 16; ++m)
    for (Format f : {Format::bf16, Format::q8_0, Format::int4_g128, Format::fp8})
      EXPECT_EQ(infeasible(default_config(decode(m, 12288, 4096), f, 132, Engine::bulk), decode(m, 12288, 4096)), "");
  EXPECT_EQ(default_config(decode(16, 12288, 4096), Format::int4_g128, 132, Engine::bulk).unroll, 2);
  // The feasible set holds bulk configurations, every one of them persistent over all its warps.
  int bulk = 0;
  for (const Config& f : feasible_set(p, Format::bf16))
    if (f.engine == Engine::bulk) {
      ++bulk;
      EXPECT_TRUE(f.persistent && f.ksplit == f.threads / 32 && f.stages >= 2) << to_string(f);
    }
  EXPECT_GT(bulk, 50);
  // Its kernel, and scales it must copy on 16-byte boundaries.
  EXPECT_EQ(kernel_build(c).kernel_file, "gemv_bulk.cuh");
  EXPECT_EQ(kernel_build(c).name_expression, "tilewise::kernels::gemv::gemv_bulk<1, 0, 0, 0, 8, 4, 4, 2, 0>");
  auto at = [](uintptr_t address) { return reinterpret_cast<void*>(address); };
  Args a{at(0x1000), 4096, at(0x2000), 4096, at(0x4008), at(0x3000), 1};
  EXPECT_TRUE(Contains(args_error(default_config(p, Format::q8_0, 132, Engine::bulk), p, a), "not 16-byte aligned (the bulk engine copies them)"));
  a.scales = at(0x4010);
  EXPECT_EQ(args_error(default_config(p, Format::q8_0, 132, Engine::bulk), p, a), "");
}

// The mma-order engine (kernels/gemv_mma_order.cuh) names each rule a configuration or problem breaks; its defaults
// and a step of eight blocks compile without spills and within the register estimate.
TEST(GemvConfig, TheMmaOrderEngineNamesWhatItDoesNotTake) {
  const Problem p = decode(1, 12288, 4096);
  const Config c = default_config(p, Format::int4_g128, 132, Engine::mma_order);
  EXPECT_EQ(to_string(c), "m=1,w=int4g128,x=bf16,engine=mma-order,threads=512,cols=16,ksplit=16,unroll=2,hint=na,persistent=1,pdl=1");
  EXPECT_EQ(parse_config(to_string(c)), c);
  EXPECT_EQ(infeasible(c, p), "");
  EXPECT_EQ(cta_cols(c), 16);
  EXPECT_EQ(dynamic_shared_bytes(c, 4096), 4096 * 2 + 16 * 16 * 4);
  // From two tokens, two quarters a CTA and four blocks a step; int4 g32 two, where four would pass the registers
  // 512 threads leave (128); K split 4 where K gives a warp of 8 less than one step of four blocks.
  const auto rule = [](int64_t M, int64_t N, int64_t K, Format f) {
    const Config d = default_config(decode(M, N, K), f, 132, Engine::mma_order);
    EXPECT_EQ(infeasible(d, decode(M, N, K)), "") << to_string(d);
    EXPECT_TRUE(d.persistent && d.threads == 512) << to_string(d);
    return std::tuple(d.ksplit, d.unroll);
  };
  EXPECT_EQ(rule(8, 28672, 8192, Format::int4_g128), std::tuple(8, 4));
  EXPECT_EQ(rule(2, 4096, 14336, Format::int4_g128), std::tuple(8, 4));
  EXPECT_EQ(rule(8, 28672, 8192, Format::int4_g32), std::tuple(8, 2));
  EXPECT_EQ(rule(1, 4096, 14336, Format::int4_g32), std::tuple(16, 2));
  EXPECT_EQ(rule(1, 192, 1024, Format::int4_g128), std::tuple(8, 2));
  EXPECT_EQ(rule(4, 192, 1024, Format::int4_g128), std::tuple(4, 4));
  EXPECT_EQ(rule(1, 192, 384, Format::int4_g128), std::tuple(4, 2));
  EXPECT_EQ(dynamic_shared_bytes(default_config(p, Format::int4_g128, 132, Engine::mma), 4096), 0);
  // What the family reports it builds (tilewise compile's table) is what a launch takes.
  const std::vector<families::Instantiation> instantiated = families::family("gemv").instantiations(p, to_string(c));
  ASSERT_EQ(instantiated.size(), 1u);
  EXPECT_EQ(instantiated[0].dynamic_shared_bytes, 4096 * 2 + 16 * 16 * 4);
  EXPECT_EQ(kernel_build(c).kernel_file, "gemv_mma_order.cuh");
  EXPECT_EQ(kernel_build(c).name_expression, "tilewise::kernels::gemv::gemv_mma_order<1, 4, 0, 512, 16, 2, 2, 1, 1>");
  auto why = [](Config v, const Problem& q) { return infeasible(v, q); };
  Config v = c;
  v.weights = Format::q8_0;
  EXPECT_TRUE(Contains(why(v, p), "reads int4 weights (int4g128, int4g32), not q8_0"));
  v = c, v.act = DType::fp8_e4m3;
  EXPECT_TRUE(Contains(why(v, decode(1, 12288, 4096, DType::fp8_e4m3)), "takes 16-bit activations, not fp8"));
  v = c, v.m = 9;
  EXPECT_TRUE(Contains(why(v, decode(9, 12288, 4096)), "M = 1..8 (one 8-token tile), not 9"));
  EXPECT_TRUE(Contains(why(c, decode(1, 12304, 4096)), "N = 12304 and K = 4096 must be multiples of 64"));
  EXPECT_TRUE(Contains(why(c, decode(1, 12288, 4160)), "K = 4160 is not a multiple of the int4g128 group"));
  v = c, v.cols = 32;
  EXPECT_TRUE(Contains(why(v, p), "16 rows a warp: cols = 16, not 32"));
  v = c, v.threads = 256, v.ksplit = 1;
  EXPECT_TRUE(Contains(why(v, p), "8 warps over ksplit = 1 is not 1, 2 or 4 quarters"));
  v = c, v.ksplit = 3;
  EXPECT_TRUE(Contains(why(v, p), "ksplit = 3 is not 1, 2 or 4 quarters"));
  v = c, v.unroll = 1;
  EXPECT_TRUE(Contains(why(v, p), "unroll = 1 blocks is not whole 128-weight groups"));
  v.weights = Format::int4_g32;
  EXPECT_EQ(why(v, p), "");
  v = c, v.persistent = false;
  EXPECT_EQ(why(v, p), "");  // one tile a CTA
  v = c, v.prefetch = true;
  EXPECT_TRUE(Contains(why(v, p), "no prefetch or interleave"));
  v = c, v.stages = 2;
  EXPECT_TRUE(Contains(why(v, p), "stages = 2 is for the bulk engine"));
  v = c, v.m = 8;
  EXPECT_TRUE(Contains(why(v, decode(8, 12288, 16384)), "x of M = 8 by K = 16384 and the sums take 270336 bytes of shared memory"));
  EXPECT_EQ(why(v, decode(8, 12288, 8192)), "");
  EXPECT_TRUE(Contains(why(c, make_problem("nn", 1, 12288, 4096, DType::bf16, Layout::NN)), "configuration reads x as layout TN"));
  // Not in the tuner's grid (it is timed by name, gemv:int4@engine=mma-order).
  for (const Config& f : feasible_set(p, Format::int4_g128)) EXPECT_NE(f.engine, Engine::mma_order) << to_string(f);

  std::vector<Config> configs;
  for (Format f : {Format::int4_g128, Format::int4_g32})
    for (int64_t m : {1, 8}) {
      const Problem q = decode(m, 12288, 4096);
      Config d = default_config(q, f, 132, Engine::mma_order);
      configs.push_back(d);
      d.threads = 256, d.ksplit = 8, d.unroll = 8;  // eight blocks a step need more than 512 threads' 128 registers
      configs.push_back(d);
    }
  std::vector<jit::KernelBuild> builds;
  for (const Config& k : configs) builds.push_back(kernel_build(k));
  const std::vector<jit::Built> built = jit::build_all(builds);
  for (size_t i = 0; i < configs.size(); ++i) {
    SCOPED_TRACE(to_string(configs[i]));
    EXPECT_GT(built[i].usage.registers, 0);
    EXPECT_FALSE(built[i].usage.spills());
    EXPECT_LE(built[i].usage.registers, register_estimate(configs[i]));
  }
}

TEST(GemvConfig, FeasibleSetIsLegalAndHoldsTheDefault) {
  const Problem p = decode(1, 12288, 4096);
  const std::vector<Config> set = feasible_set(p, Format::q8_0);
  EXPECT_GT(set.size(), 100u);
  for (const Config& c : set) EXPECT_EQ(infeasible(c, p), "") << to_string(c);
  EXPECT_NE(std::find(set.begin(), set.end(), default_config(p, Format::q8_0)), set.end());
}

// Spills are caught without a GPU: ptxas reports each kernel's stack frame and spill stores and loads, and any of them
// is local memory in the weight stream. Compiled here with NVRTC for sm_90a (the first run takes a minute or so; the
// JIT cache keeps the cubins): every default the decode suite and llm24's M <= 16 shapes take in every format and
// activation type (so every arm's default on dec_m1_12288 and dec_m16_12288), the defaults at the GPU tests' odd
// shape (N = 200, K = 384, where K splits eight ways), and the register-pressure edge of the feasible set: for M at
// both ends and between, each format, 16-bit and fp8 activations and each thread count, the feasible configuration
// with the largest register estimate (among those, the cache hint that takes a register more, the deepest K split),
// and that edge for M-major x.
TEST(GemvConfig, RepresentativeConfigurationsCompileWithoutSpills) {
  constexpr Format formats[] = {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8};
  constexpr DType acts[] = {DType::bf16, DType::fp16, DType::fp8_e4m3};
  std::vector<Config> configs;
  auto add = [&](const Config& c) {
    if (std::find(configs.begin(), configs.end(), c) == configs.end()) configs.push_back(c);
  };
  for (int64_t m : {1, 16})
    for (DType d : acts)
      for (Format f : formats) add(default_config(decode(m, 12288, 4096, d), f));
  const size_t arm_defaults = configs.size();
  EXPECT_EQ(arm_defaults, 2u * 3u * 6u);
  std::vector<SuiteEntry> entries = load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt").entries;
  for (const SuiteEntry& e : load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/llm24.txt").entries)
    if (e.M <= 16) entries.push_back(e);
  for (const SuiteEntry& e : entries)
    for (DType d : acts)
      for (Format f : formats) add(default_config(decode(e.M, e.N, e.K, d), f));
  for (int64_t m = 1; m <= 16; ++m)
    for (Format f : formats) add(default_config(decode(m, 200, 384), f));
  auto key = [](const Config& c) { return std::tuple(register_estimate(c), c.hint == Hint::evict_first, c.ksplit); };
  for (int64_t m : {1, 2, 4, 8, 12, 16})
    for (DType d : {DType::bf16, DType::fp8_e4m3})
      for (Format f : formats) {
        const std::vector<Config> feasible = feasible_set(decode(m, 12288, 4096, d), f);
        for (int threads : {128, 256, 512})
          for (Engine engine : {Engine::fma, Engine::mma, Engine::bulk}) {
            std::optional<Config> edge;
            for (const Config& c : feasible)
              if (c.engine == engine && c.threads == threads && (engine == Engine::bulk || !c.persistent) &&
                  (!edge || key(c) > key(*edge)))
                edge = c;
            // None where 512 threads leave too few registers for x at larger M, or the mma engine refuses the
            // weights (int4 g32, a grouped format with fp8 x, 16-bit weights of the other type)
            if (edge) add(*edge);
          }
      }
  // M-major x (NN) arrives 8 tokens of one k at a time (the fma engine multiplies k by k, the mma engine transposes
  // across lanes): the same edge for 16-bit x at M = 1 and 16 on the register-streaming engines, and the defaults
  // llm24's M = 16 NN shapes take.
  for (int64_t m : {1, 16})
    for (Format f : formats) {
      if (f == Format::fp16) continue;  // the other 16-bit type's weights
      Problem nn = make_problem("nn", m, 12288, 4096, DType::bf16, Layout::NN);
      nn.lda = 16;  // whole 16-byte columns at M = 1 too
      const std::vector<Config> feasible = feasible_set(nn, f);
      if (f == Format::bf16) ASSERT_FALSE(feasible.empty()) << describe(nn);  // int4g32 has no NN engine at all
      for (int threads : {128, 256})
        for (Engine engine : {Engine::fma, Engine::mma}) {
          std::optional<Config> edge;
          for (const Config& c : feasible)
            if (c.engine == engine && c.threads == threads && !c.persistent && (!edge || key(c) > key(*edge))) edge = c;
          if (edge) add(*edge);
        }
    }
  for (const SuiteEntry& e : entries)
    if (e.M == 16)
      for (DType d : {DType::bf16, DType::fp16})
        add(default_config(make_problem("nn", e.M, e.N, e.K, d, Layout::NN), native_format(d)));
  std::vector<jit::KernelBuild> builds;
  for (const Config& c : configs) builds.push_back(kernel_build(c));
  const std::vector<jit::Built> built = jit::build_all(builds);
  int spilled = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const jit::ResourceUsage& u = built[i].usage;
    EXPECT_GT(u.registers, 0) << to_string(configs[i]) << ": no ptxas usage in the log";
    EXPECT_LE(u.registers, register_limit(block_threads(configs[i]))) << to_string(configs[i]);
    if (u.spills()) {
      ++spilled;
      ADD_FAILURE() << to_string(configs[i]) << (i < arm_defaults ? " (an arm's default)" : "") << ": " << u.registers
                    << " registers, " << u.stack_frame_bytes << " bytes stack frame, " << u.spill_store_bytes
                    << " bytes spill stores, " << u.spill_load_bytes << " bytes spill loads";
    }
  }
  EXPECT_EQ(spilled, 0) << "of " << configs.size() << " configurations";
}

// The CTAs of `c` an SM holds, from the registers and static shared memory ptxas gave its kernel, as the occupancy
// calculator counts them for sm_90: registers in units of 8 a thread, a warp's from one of the SM's four 16384-register
// quarters (so 5-warp CTAs are counted by the warps the quarters hold, not by 65536 over the CTA's registers), at
// most 64 warps and 32 CTAs, and 228 KiB of shared memory with 1 KiB reserved a CTA.
int resident_ctas(const Config& c, const jit::ResourceUsage& u) {
  const int warps = (block_threads(c) + 31) / 32;
  const int warps_by_registers = 4 * (16384 / (32 * ((u.registers + 7) / 8 * 8)));
  const int shared = u.shared_bytes + bulk_shared_bytes(c) + 1024;
  return std::min({warps_by_registers / warps, 64 / warps, 32, 233472 / shared});
}

TEST(GemvConfig, WaveRuleCasesAreTheRulesChoices) {
  for (const WaveCase& w : wave_rule_cases()) {
    if (w.cols) EXPECT_EQ(w.config.cols, w.cols) << to_string(w.config);
    if (w.threads) EXPECT_EQ(w.config.threads, w.threads) << to_string(w.config);
  }
}

TEST(GemvConfig, TheWaveRuleCountsTheCtasAnSmTheCompiledKernelsHold) {
  // What GemvGpu.TheWaveRuleCountsTheCtasAnSmTheKernelsHold asks the GPU, from the compiled kernels' registers: a
  // kernel change that takes a rule configuration across a count (128-thread CTAs: four at 128 registers or fewer,
  // three at 168 or fewer) fails here, without a GPU.
  const std::vector<WaveCase> cases = wave_rule_cases();
  std::vector<jit::KernelBuild> builds;
  for (const WaveCase& w : cases)
    for (bool y_rows : {false, true}) builds.push_back(kernel_build(w.config, y_rows));
  const std::vector<jit::Built> built = jit::build_all(builds);
  for (size_t i = 0; i < builds.size(); ++i) {
    const WaveCase& w = cases[i / 2];
    EXPECT_EQ(resident_ctas(w.config, built[i].usage), w.per_sm)
        << to_string(w.config) << (i % 2 ? " y rows" : "") << ": " << built[i].usage.registers << " registers";
  }
}

TEST(GemvConfig, RegisterLimitIsTheKernelsCap) {
  EXPECT_EQ(register_limit(64), 255);
  EXPECT_EQ(register_limit(256), 255);
  EXPECT_EQ(register_limit(384), 168);
  EXPECT_EQ(register_limit(512), 128);
  EXPECT_EQ(register_limit(1024), 64);
  // Two int4 tiles a warp at M = 16 fit 128 threads (about 170 registers under the cap of 255) and would spill at
  // 512 threads (128).
  Config c = default_config(decode(16, 12288, 4096), Format::int4_g128);
  ASSERT_EQ(c.cols, 32);
  EXPECT_GT(register_estimate(c), register_limit(512));
  c.threads = 512, c.ksplit = 16;
  EXPECT_TRUE(Contains(infeasible(c, decode(16, 12288, 4096)), "would spill"));
}

TEST(GemvConfig, LaunchArgumentsAreCheckedBeforeTheLaunch) {
  const Problem p = decode(1, 64, 128);
  auto at = [](uintptr_t address) { return reinterpret_cast<void*>(address); };
  const Args good{at(0x1000), 128, at(0x2000), 256, nullptr, at(0x3000), 1};
  Config c = default_config(p, Format::bf16, 132, Engine::mma);
  EXPECT_EQ(args_error(c, p, good), "");
  Args a = good;
  a.x = nullptr;
  EXPECT_TRUE(Contains(args_error(c, p, a), "are all required"));
  a = good, a.x = at(0x1008);  // 8-byte aligned: enough for the FMA engine's fp8 x only
  EXPECT_TRUE(Contains(args_error(c, p, a), "is not 16-byte aligned (mma engine vector loads)"));
  a = good, a.w = at(0x2008);
  EXPECT_TRUE(Contains(args_error(c, p, a), "not 16-byte aligned rows of K = 128"));
  a = good, a.w_row_bytes = 128;  // 64 bf16 weights: short of K
  EXPECT_TRUE(Contains(args_error(c, p, a), "not 16-byte aligned rows of K = 128"));
  c = default_config(p, Format::q8_0);
  a = good, a.w_row_bytes = 128;
  EXPECT_TRUE(Contains(args_error(c, p, a), "q8_0 weights need their scales"));
  a.scales = at(0x4000);
  EXPECT_EQ(args_error(c, p, a), "");
  a.scales = at(0x4001);  // fp16 scales on an odd address: refused, not a faulting load
  EXPECT_TRUE(Contains(args_error(c, p, a), "scales at 0x4001 are not 2-byte aligned"));
  a.scales = at(0x4002);
  EXPECT_TRUE(Contains(args_error(default_config(p, Format::fp8), p, a), "scales at 0x4002 are not 4-byte aligned"));
  a.scales = at(0x4000);
  const Problem fp8 = decode(1, 64, 128, DType::fp8_e4m3);
  c = default_config(fp8, Format::fp8, 132, Engine::fma);
  a.x = at(0x1008);
  EXPECT_EQ(args_error(c, fp8, a), "");  // the FMA engine reads fp8 x 8 bytes at a time
  // An fp8 problem's own B has no channel scale (scale 1); fp8 weights packed for 16-bit x always have theirs.
  a.scales = nullptr;
  EXPECT_EQ(args_error(c, fp8, a), "");
  a.x = good.x;
  EXPECT_TRUE(Contains(args_error(default_config(p, Format::fp8), p, a), "fp8 weights need their scales"));
  // M-major x (NN) is read 8 tokens of one k at a time: 16-byte aligned.
  Problem nn = make_problem("nn", 3, 64, 128, DType::bf16, Layout::NN);
  nn.lda = 8;
  a = good;
  EXPECT_EQ(args_error(default_config(nn, Format::bf16, 132, Engine::mma), nn, a), "");
  a.x = at(0x1008);
  for (Engine e : {Engine::fma, Engine::mma})
    EXPECT_TRUE(Contains(args_error(default_config(nn, Format::bf16, 132, e), nn, a), "not 16-byte aligned"));
}

TEST(GemvConfig, KernelBuildNamesTheInstantiation) {
  const jit::KernelBuild b = kernel_build(sample());
  EXPECT_EQ(b.kernel_file, "gemv.cuh");
  EXPECT_EQ(b.name_expression, "tilewise::kernels::gemv::gemv<4, 4, 1, 128, 4, 2, 2, 3, 0, 0>");
  EXPECT_EQ(b.config_text, to_string(sample()));
  EXPECT_EQ(b.arch, "sm_90a");
  Config mma = default_config(decode(16, 8192, 4096, DType::fp16), Format::fp16);
  mma.ksplit = 8, mma.pdl = false;
  EXPECT_EQ(kernel_build(mma).kernel_file, "gemv_mma.cuh");
  EXPECT_EQ(kernel_build(mma).name_expression, "tilewise::kernels::gemv::gemv_mma<16, 1, 1, 0, 256, 16, 8, 4, 2, 0, 0, 0>");
  // nn.Linear's y rows: one more template argument, another cache key.
  EXPECT_EQ(kernel_build(mma, true).name_expression, "tilewise::kernels::gemv::gemv_mma<16, 1, 1, 0, 256, 16, 8, 4, 2, 0, 0, 0, 1>");
  EXPECT_NE(jit::cache_key(kernel_build(mma, true)), jit::cache_key(kernel_build(mma)));
  mma.pdl = true, mma.layout = Layout::NN, mma.interleave = true;
  EXPECT_EQ(kernel_build(mma).name_expression, "tilewise::kernels::gemv::gemv_mma<16, 1, 1, 1, 256, 16, 8, 4, 2, 1, 1, 0>");
  mma.weights = Format::int4_g128, mma.prefetch = true;
  EXPECT_EQ(kernel_build(mma).name_expression, "tilewise::kernels::gemv::gemv_mma<16, 4, 1, 1, 256, 16, 8, 4, 2, 1, 1, 1>");
  Config nn = sample();  // the fma engine on M-major x is its own kernel
  nn.layout = Layout::NN, nn.weights = Format::fp16;
  EXPECT_EQ(kernel_build(nn).kernel_file, "gemv_nn.cuh");
  EXPECT_EQ(kernel_build(nn).name_expression, "tilewise::kernels::gemv::gemv_nn<4, 1, 1, 128, 4, 2, 2, 3, 0>");
}

}  // namespace
}  // namespace tilewise::gemv
