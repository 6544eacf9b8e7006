// The sm90 configuration as a value, and the feasibility rules that make the tuner's search space.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "expect_error.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::sm90 {
namespace {

TEST(Sm90Config, RoundTripsThroughStringAndJson) {
  const Config c{128, 256, 5, 2, Raster::n, 16, Store::tma, Schedule::pingpong, 1, 2};
  EXPECT_EQ(to_string(c), "block_m=128,block_n=256,stages=5,consumers=2,raster=n,group=16,store=tma,"
                          "schedule=pingpong,cluster=1x2,split=1");
  EXPECT_EQ(parse_config(to_string(c)), c);
  EXPECT_EQ(nlohmann::json(c).get<Config>(), c);
  const Config streamed{256, 128, 4, 2, Raster::m, 8, Store::tma_ring, Schedule::cooperative, 1, 1, 3};
  EXPECT_EQ(parse_config(to_string(streamed)), streamed);
  // Written before stream-K existed: the missing field means whole tiles.
  EXPECT_EQ(parse_config("block_m=256,schedule=cooperative,cluster=1x1").split, 1);
  EXPECT_EQ(parse_config("stages=3,block_m=64"), (Config{64, 128, 3, 2, Raster::m, 8, Store::direct}));
  // pdl is written only when set, so every string from before it reads back to the same text.
  Config dependent = streamed;
  dependent.pdl = true;
  EXPECT_EQ(to_string(dependent), to_string(streamed) + ",pdl=1");
  EXPECT_EQ(parse_config(to_string(dependent)), dependent);
  EXPECT_FALSE(parse_config(to_string(streamed)).pdl);
  Config swapped = dependent;
  swapped.swap = true;
  EXPECT_EQ(to_string(swapped), to_string(streamed) + ",swap=1,pdl=1");
  EXPECT_EQ(parse_config(to_string(swapped)), swapped);
}

TEST(Sm90Config, BadTextNamesTheField) {
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("block_m=abc"); }), "block_m=abc is not an integer"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("raster=x"); }), "raster=x is not one of m, n"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("store=smem"); }), "store=smem is not one of tma, tma_ring, direct"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("tiles=3"); }), "unknown field 'tiles'"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("stages=3,stages=4"); }), "stages is given twice"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("stages"); }), "'stages' is not key=value"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("cluster=2x2"); }), "cluster=2x2 is not one of"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("schedule=x"); }), "schedule=x is not one of"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { parse_config("pdl=2"); }), "pdl=2 is not one of 0, 1"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { nlohmann::json(5).get<Config>(); }), "must be a string"));
}

// "sm90@<fields>" lays fields over the first rule's choice; a bad one is named when the arm is made, before any GPU
// work, as are packed weights, which need the packed arms' operands.
TEST(Sm90Arms, FieldsOverTheRuleAreCheckedWhenTheArmIsMade) {
  EXPECT_NE(make_arm("sm90@pdl=0"), nullptr);
  EXPECT_NE(make_arm("sm90@pdl=1;stages=4"), nullptr);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { make_arm("sm90@tiles=3"); }), "unknown field 'tiles'"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { make_arm("sm90@pdl=2"); }), "pdl=2 is not one of 0, 1"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { make_arm("sm90@pdl=2"); }), "arm sm90@pdl=2: "));
  // The packed arms name themselves too, and a bad value is refused when the arm is made, before any GPU work.
  const std::string packed = testkit::error_of([&] { make_arm("sm90:int4@swap=2"); });
  EXPECT_TRUE(testkit::Contains(packed, "arm sm90:int4@swap=2: ")) << packed;
  EXPECT_TRUE(testkit::Contains(packed, "swap=2 is not one of 0, 1")) << packed;
  EXPECT_TRUE(
      testkit::Contains(testkit::error_of([&] { make_arm("sm90@weights=int4g128"); }), "arm sm90@weights=int4g128"));
}

Problem square(int64_t n, DType d = DType::bf16, Layout l = Layout::TN) { return make_problem("sq", n, n, n, d, l); }

TEST(Sm90Feasibility, EachRuleNamesWhyAConfigurationCannotRun) {
  const Problem p = square(4096);
  auto why = [&](Config c, const Problem& q) { return infeasible(c, q).value_or("feasible"); };
  EXPECT_EQ(why(Config{}, p), "feasible");
  EXPECT_NE(why(Config{100, 128, 4, 2}, p).find("not a wgmma width"), std::string::npos);
  EXPECT_NE(why(Config{256, 256, 4, 2}, p).find("accumulators per thread"), std::string::npos);
  EXPECT_NE(why(Config{256, 128, 4, 2, Raster::m, 8, Store::tma}, p).find("shared memory"), std::string::npos);
  EXPECT_NE(why(Config{256, 192, 4, 2}, p).find("64 or 128 rows"), std::string::npos);
  EXPECT_NE(why(Config{128, 128, 4, 1, Raster::m, 8, Store::direct, Schedule::pingpong}, p).find("two consumers"),
            std::string::npos);
  EXPECT_NE(why(Config{256, 256, 4, 2, Raster::m, 8, Store::direct, Schedule::pingpong}, p).find("64 or 128 rows"),
            std::string::npos);
  EXPECT_EQ(why(Config{128, 128, 4, 2, Raster::m, 8, Store::tma, Schedule::pingpong}, p), "feasible");
  EXPECT_NE(why(Config{64, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 2},
                square(4096, DType::bf16, Layout::NN)).find("whole 64-column atoms"), std::string::npos);
  EXPECT_NE(why(Config{8, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 2}, p).find("multiple of 16"),
            std::string::npos);
  EXPECT_NE(why(Config{256, 128, 1, 2}, p).find("stages=1"), std::string::npos);
  EXPECT_NE(why(Config{256, 128, 17, 2}, p).find("stages=17 is outside 2..16"), std::string::npos);
  EXPECT_EQ(why(Config{16, 64, 16, 1}, make_problem("dec", 16, 8192, 4096, DType::bf16, Layout::TN)), "feasible");
  EXPECT_NE(why(Config{128, 128, 16, 2}, p).find("shared memory"), std::string::npos);
  EXPECT_NE(why(Config{256, 64, 4, 1, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 2}, p)
                .find("stream-K beside 128 accumulators in one consumer"), std::string::npos);
  EXPECT_EQ(why(Config{256, 64, 4, 1, Raster::m, 8, Store::direct}, p), "feasible");
  EXPECT_EQ(why(Config{256, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 2}, p), "feasible");
  Config swapped_wide{128, 256, 2, 2};
  swapped_wide.swap = true;
  EXPECT_NE(why(swapped_wide, p).find("swapped operands' direct store beside 128 accumulators"), std::string::npos);
  Config swapped{16, 64, 8, 1};  // a 16-wide wgmma over N = 16, 64-row tiles over M
  swapped.swap = true;
  const Problem skinny = make_problem("skinny", 8192, 16, 2048, DType::bf16, Layout::TN);
  EXPECT_EQ(why(swapped, skinny), "feasible");
  EXPECT_NE(why(swapped, square(4096, DType::bf16, Layout::NN)).find("both K-major"), std::string::npos);
  swapped.store = Store::tma_ring;
  EXPECT_NE(why(swapped, skinny).find("direct or staged store"), std::string::npos);
  EXPECT_EQ(kernel_view(skinny, Config{16, 64, 8, 1, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 1, true}).M, 16);
  EXPECT_NE(why(Config{48, 64, 4, 1}, square(4096, DType::bf16, Layout::NN)).find("multiple of 64"), std::string::npos);
  EXPECT_NE(why(Config{48, 64, 4, 1, Raster::m, 8, Store::tma}, p).find("multiple of 64"), std::string::npos);
  EXPECT_NE(why(Config{}, square(4096, DType::fp8_e4m3, Layout::NN)).find("K-major"), std::string::npos);
  const Problem odd_ldc = make_problem("odd", 100, 64, 64, DType::bf16, Layout::TN);
  EXPECT_NE(why(Config{64, 64, 4, 1, Raster::m, 8, Store::tma}, odd_ldc).find("ldc"), std::string::npos);
  EXPECT_EQ(why(Config{64, 64, 4, 1, Raster::m, 8, Store::direct}, odd_ldc), "feasible");
  EXPECT_NE(why(Config{256, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 0}, p).find("split=0"),
            std::string::npos);
  EXPECT_NE(why(Config{256, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 65}, p).find("split=65"),
            std::string::npos);
  EXPECT_NE(why(Config{128, 128, 4, 2, Raster::m, 8, Store::tma, Schedule::pingpong, 1, 1, 2}, p).find("stream-K"),
            std::string::npos);
  EXPECT_NE(why(Config{128, 128, 4, 2, Raster::m, 8, Store::tma, Schedule::cooperative, 2, 1, 2}, p).find("stream-K"),
            std::string::npos);
  // Stream-K's fixup beside the most accumulators spilled with these stores (feasibility.cpp).
  EXPECT_EQ(why(Config{224, 128, 2, 2, Raster::m, 8, Store::staged, Schedule::cooperative, 1, 1, 2}, p),
            "stream-K with the staged store beside 112 accumulators spills registers");
  EXPECT_EQ(why(Config{128, 256, 2, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 2}, p),
            "stream-K with the direct store beside 128 accumulators spills registers");
  EXPECT_EQ(why(Config{256, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 2}, p), "feasible");
  EXPECT_EQ(why(Config{128, 128, 4, 2, Raster::m, 8, Store::tma, Schedule::cooperative, 1, 1, 4}, p), "feasible");
  // Swapped operands beside stream-K in one consumer: 232 and 248 wide spilled, 224 did not (nor two consumers).
  EXPECT_EQ(why(Config{232, 64, 4, 1, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 3, true}, p),
            "stream-K with swapped operands beside 116 accumulators in one consumer spills registers");
  EXPECT_EQ(why(Config{224, 64, 4, 1, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 3, true}, p), "feasible");
  EXPECT_EQ(why(Config{232, 128, 4, 2, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 3, true}, p),
            "feasible");
  // So did the unswapped direct store (248 x 64 at split 3 spilled 8 bytes, with PDL and without); not unsplit.
  EXPECT_EQ(why(Config{248, 64, 4, 1, Raster::n, 4, Store::direct, Schedule::cooperative, 1, 1, 3}, p),
            "stream-K with the direct store beside 124 accumulators in one consumer spills registers");
  EXPECT_EQ(why(Config{248, 64, 4, 1, Raster::n, 4, Store::direct, Schedule::cooperative, 1, 1, 1}, p), "feasible");
  EXPECT_EQ(why(Config{224, 64, 4, 1, Raster::n, 4, Store::direct, Schedule::cooperative, 1, 1, 3}, p), "feasible");
  // Every multiple of 8 up to 256 is a width (scripts/gen_wgmma.py), so a swapped tile fits a token count.
  EXPECT_EQ(why(Config{136, 64, 4, 1, Raster::m, 8, Store::direct, Schedule::cooperative, 1, 1, 1, true}, p), "feasible");
  EXPECT_NE(why(Config{260, 64, 4, 1}, p).find("not a wgmma width"), std::string::npos);
  EXPECT_NE(why(Config{64, 64, 4, 1, Raster::m, 8, Store::tma, Schedule::cooperative, 1, 1, 2},
                make_problem("huge", 65536, 65536, 131072, DType::bf16, Layout::TN)).find("2^31"),
            std::string::npos);
}

TEST(Sm90Feasibility, ThreeConsumersTakeSixtyFourRowsEachWithinTheirSmallerRegisterShare) {
  const Problem p = square(1536);
  auto why = [&](Config c) { return infeasible(c, p).value_or("feasible"); };
  EXPECT_EQ(why(Config{96, 192, 6, 3}), "feasible");  // cuBLASLt's 192 x 96 for this square: 128 tiles
  EXPECT_EQ(why(Config{128, 192, 4, 3, Raster::m, 8, Store::tma_ring, Schedule::cooperative, 1, 1, 2}), "feasible");
  EXPECT_NE(why(Config{96, 192, 6, 3, Raster::m, 8, Store::direct, Schedule::pingpong}).find("two consumers"),
            std::string::npos);
  // Three consumers are held to 128 registers a thread: 96 accumulators spilled beside stream-K, NN and PDL.
  EXPECT_NE(why(Config{192, 192, 3, 3}).find("96 accumulators per thread exceed 64 (3 consumers)"), std::string::npos);
  EXPECT_EQ(why(Config{128, 192, 4, 3, Raster::m, 8, Store::staged, Schedule::cooperative, 1, 1, 4}), "feasible");
  EXPECT_NE(why(Config{64, 384, 2, 3}).find("256 rows one TMA box holds"), std::string::npos);
  EXPECT_NE(why(Config{64, 256, 2, 4}).find("consumers=4 is not 1, 2 or 3"), std::string::npos);
  Config swapped{128, 192, 4, 3};
  swapped.swap = true;
  EXPECT_NE(why(swapped).find("swapped operands' direct store beside 64 accumulators"), std::string::npos);
  const std::vector<Config> set = feasible_set(p);
  EXPECT_NE(std::find(set.begin(), set.end(), Config{96, 192, 6, 3}), set.end());
}

TEST(Sm90Feasibility, TheStagedStoreTakesAnyWidthInSharedMemoryAndSwappedOperandsTransposed) {
  const Problem p = square(1536);
  auto why = [&](Config c) { return infeasible(c, p).value_or("feasible"); };
  Config staged{96, 192, 5, 3, Raster::m, 8, Store::staged};
  EXPECT_EQ(parse_config(to_string(staged)), staged);
  EXPECT_NE(to_string(staged).find("store=staged"), std::string::npos);
  EXPECT_EQ(why(staged), "feasible");
  EXPECT_NE(why(Config{96, 192, 5, 3, Raster::m, 8, Store::tma_ring}).find("multiple of 64"), std::string::npos);
  // Three consumers' 64 rows of 96 columns, each row padded by 16 bytes, beside five 36 KB stages.
  EXPECT_EQ(shared_bytes(staged), 5 * (96 + 192) * 128 + 3 * 64 * (96 * 2 + 16) + 1024);
  EXPECT_NE(why(Config{96, 192, 6, 3, Raster::m, 8, Store::staged}).find("shared memory"), std::string::npos);
  EXPECT_EQ(why(Config{96, 64, 4, 1, Raster::m, 8, Store::staged}), "feasible");
  const Problem odd_ldc = make_problem("odd", 100, 64, 64, DType::bf16, Layout::TN);  // 200-byte rows: no TMA store
  EXPECT_EQ(infeasible(Config{64, 64, 4, 1, Raster::m, 8, Store::staged}, odd_ldc), std::nullopt);
  // Swapped operands stage D transposed: a line per column of D (96), each of a consumer's 64 rows padded by 16
  // bytes. The TMA stores write D as it is, so swapped operands take neither.
  staged.swap = true;
  EXPECT_EQ(why(staged), "feasible");
  EXPECT_EQ(shared_bytes(staged), 5 * (96 + 192) * 128 + 3 * 96 * (64 * 2 + 16) + 1024);
  Config swapped_tma{128, 128, 4, 2, Raster::m, 8, Store::tma};
  swapped_tma.swap = true;
  EXPECT_NE(why(swapped_tma).find("direct or staged store"), std::string::npos);
}

TEST(Sm90Feasibility, StridesTmaCannotLoadAreUnsupportedWithTheOperandNamed) {
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { require_tma_expressible(make_problem("k", 64, 64, 300, DType::bf16, Layout::TN)); }), "lda=300"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { require_tma_expressible(make_problem("m1", 1, 64, 64, DType::bf16, Layout::NN)); }), "lda=1"));
  EXPECT_THROW(first_rule(make_problem("k", 64, 64, 300, DType::fp16, Layout::TN)), Unsupported);
  EXPECT_NO_THROW(require_tma_expressible(make_problem("k", 64, 64, 300, DType::fp16, Layout::TN, 4)));
}

TEST(Sm90Feasibility, FeasibleSetHoldsOnlyFeasibleConfigurationsAndAllOfThem) {
  const Problem p = square(2048, DType::fp16, Layout::NN);
  const std::vector<Config> set = feasible_set(p);
  ASSERT_FALSE(set.empty());
  for (const Config& c : set) {
    EXPECT_FALSE(infeasible(c, p)) << to_string(c);
    EXPECT_LE(shared_bytes(c), Limits{}.shared_bytes_per_block);
    EXPECT_EQ(c.block_m % 64, 0) << to_string(c);
  }
  EXPECT_NE(std::find(set.begin(), set.end(), first_rule(p)), set.end());
}

TEST(Sm90Heuristic, TileFromTheWavesItFillsAndFeasibleEverywhere) {
  // Grids that fill whole waves keep the largest tile, with the four-stage ring the TMA store leaves it.
  for (int64_t n : {2048, 4096}) {
    const Config c = first_rule(square(n));
    EXPECT_EQ(c.block_m, 256) << n;
    EXPECT_EQ(c.block_n, 128) << n;
    EXPECT_EQ(c.store, Store::tma_ring) << n;
    EXPECT_EQ(c.stages, 4) << n;
  }
  // sq3072: 192x128 fills three waves to 97%, where 256x128 fills 73% and 128x128 87% (measured fastest there).
  EXPECT_EQ(first_rule(square(3072)).block_m, 192);
  EXPECT_EQ(first_rule(square(3072)).split, 1);
  // sq2560: no ladder tile fills its waves beyond 76%; a width fitted to them does: 200 x 128 in two whole waves.
  EXPECT_EQ(first_rule(square(2560)).split, 1);
  EXPECT_EQ(first_rule(square(2560)).block_m, 200);
  EXPECT_EQ(first_rule(square(2560)).block_n, 128);
  EXPECT_EQ(first_rule(square(2560)).store, Store::staged);
  // sq1536 fills as badly: 144 x 128 makes one whole wave.
  EXPECT_EQ(first_rule(square(1536)).split, 1);
  EXPECT_EQ(first_rule(square(1536)).block_m, 144);
  // Below half a wave, split-K where the pieces keep 16 k-tiles or more (results/llm24-streamk-cold.json).
  auto llm = [](int64_t m, int64_t n, int64_t k) { return first_rule(make_problem("llm", m, n, k, DType::bf16, Layout::TN)); };
  EXPECT_EQ(llm(16, 16, 4096).split, 4);        // sn_16_dec: one 16x64 tile
  EXPECT_GT(llm(16, 4096, 16384).split, 1);     // d4k_down_dec: 64 tiles
  EXPECT_EQ(llm(16, 8192, 4096).split, 1);      // d4k_qkv_dec: 128 tiles, nearly a wave
  EXPECT_EQ(llm(8192, 16, 2048).block_n, 64);   // sn_16_pf: N = 16 wastes less of a 64-row tile ...
  EXPECT_EQ(llm(8192, 16, 2048).split, 2);      // ... and 64 of them split in two
  EXPECT_EQ(llm(1024, 1024, 8192).split, 1);    // fatK: 128x64 tiles fill 0.85 of a wave whole
  EXPECT_EQ(llm(512, 512, 512).split, 1);       // sqS: 8 k-tiles are too few to cut
  // Grids too small for the two-consumer tiles step down to one consumer, then to 64x64.
  EXPECT_EQ(first_rule(square(1024)).block_m, 128);
  EXPECT_EQ(first_rule(square(1024)).block_n, 64);
  EXPECT_EQ(first_rule(square(512)).block_m, 64);
  EXPECT_EQ(first_rule(make_problem("m16", 16, 12288, 4096, DType::bf16, Layout::TN)).block_m, 16);
  // Grids of half the SMs or fewer launch as programmatic dependents: sq256's 16 tiles and sq512's 64 (of 64x64),
  // sn_16_dec's 4 pieces; not sq768's 72 tiles of 128x64, sq1024's 128, d4k_down_dec's 64 tiles in several pieces.
  for (int64_t n : {256, 512}) EXPECT_TRUE(first_rule(square(n)).pdl) << n;
  EXPECT_TRUE(llm(16, 16, 4096).pdl);
  for (int64_t n : {768, 1024, 1536, 2048}) EXPECT_FALSE(first_rule(square(n)).pdl) << n;
  EXPECT_FALSE(llm(16, 4096, 16384).pdl);
  EXPECT_FALSE(first_rule(square(512), Limits{.sm_count = 120}).pdl);  // 64 tiles are more than half of 120
  for (const char* suite : {"square.txt", "llm24.txt", "decode.txt"})
    for (const SuiteEntry& sp : load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/" + suite).entries)
      for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
        for (Layout l : {Layout::TN, Layout::NN}) {
          if (d == DType::fp8_e4m3 && l == Layout::NN) continue;
          const Problem p = make_problem(sp.name, sp.M, sp.N, sp.K, d, l);
          try {
            const Config c = first_rule(p);
            EXPECT_FALSE(infeasible(c, p)) << describe(p) << " " << to_string(c);
          } catch (const Unsupported& e) {
            EXPECT_THROW(require_tma_expressible(p), Unsupported) << describe(p) << ": " << e.what();
          }
        }
}

}  // namespace
}  // namespace tilewise::sm90
