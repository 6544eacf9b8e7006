// The stream-K work plan: every k-tile of every tile is done exactly once, pieces never exceed the split, the grid
// is evenly loaded; and the multiply-shift division the kernel uses agrees with division.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "expect_error.hpp"
#include "families/sm90/stream_k.hpp"

namespace tilewise::sm90 {
namespace {

struct Piece {
  int cta, tile, k_begin, k_end;
};

// The pieces each CTA runs, in the kernel's order: whole tiles round the grid, then its stream-K run cut at tile
// boundaries.
std::vector<Piece> pieces(const WorkPlan& plan, int tiles, int k_tiles, int grid) {
  std::vector<Piece> out;
  for (int b = 0; b < grid; ++b) {
    for (int t = b; t < plan.dp_tiles; t += grid) out.push_back({b, t, 0, k_tiles});
    if (b >= plan.sk_ctas) continue;
    for (int at = plan.begin(k_tiles, b), end = plan.begin(k_tiles, b + 1); at < end;) {
      const int t = at / k_tiles, k_end = std::min(k_tiles, end - t * k_tiles);
      out.push_back({b, t, at - t * k_tiles, k_end});
      at = t * k_tiles + k_end;
    }
  }
  EXPECT_EQ(plan.begin(k_tiles, plan.sk_ctas), tiles * k_tiles);
  return out;
}

TEST(Sm90WorkPlan, EveryKTileOnceAndTheGridEvenlyLoaded) {
  for (int grid : {1, 7, 132})
    for (int tiles : {1, 3, 131, 132, 133, 200, 264, 268, 1024})
      for (int k_tiles : {1, 2, 5, 40, 64})
        for (int split : {1, 2, 3, 4, 8}) {
          SCOPED_TRACE(::testing::Message() << tiles << " tiles x " << k_tiles << " on " << grid << ", split " << split);
          const WorkPlan plan = work_plan(tiles, k_tiles, grid, split);
          std::vector<int> done(size_t(tiles) * k_tiles, 0);
          std::map<int, int> pieces_of_tile, load;
          for (const Piece& p : pieces(plan, tiles, k_tiles, grid)) {
            ASSERT_LT(p.k_begin, p.k_end);
            for (int k = p.k_begin; k < p.k_end; ++k) ++done[size_t(p.tile) * k_tiles + k];
            ++pieces_of_tile[p.tile];
            load[p.cta] += p.k_end - p.k_begin;
          }
          EXPECT_TRUE(std::all_of(done.begin(), done.end(), [](int n) { return n == 1; }));
          if (split == 1) {
            EXPECT_EQ(plan.sk_ctas, 0);
            continue;
          }
          // Whole tiles are whole waves, and a cut tile has at most split pieces, plus one where a run straddles.
          EXPECT_EQ(plan.dp_tiles % grid, 0) << plan.dp_tiles;
          for (const auto& [tile, n] : pieces_of_tile) EXPECT_LE(n, std::max(split, 1) + 1) << "tile " << tile;
          // Every CTA gets the same whole tiles, and the stream-K ones the same k-tiles give or take one.
          int least = 1 << 30, most = 0;
          for (int b = 0; b < plan.sk_ctas; ++b) least = std::min(least, load[b]), most = std::max(most, load[b]);
          if (plan.sk_ctas > 0) EXPECT_LE(most - least, 1);
        }
}

TEST(Sm90WorkPlan, StreamsOnlyWhatWouldIdleTheGrid) {
  // 200 tiles on 132 CTAs: one whole wave, the other 68 streamed over every CTA.
  WorkPlan p = work_plan(200, 40, 132, 2);
  EXPECT_EQ(p.dp_tiles, 132);
  EXPECT_EQ(p.sk_ctas, 132);
  // 400 tiles: 4 left over would give 8 pieces at split 2, so the last whole wave is streamed with them.
  p = work_plan(400, 40, 132, 2);
  EXPECT_EQ(p.dp_tiles, 264);
  EXPECT_EQ(p.sk_ctas, 132);
  // Whole waves: nothing to stream.
  p = work_plan(264, 40, 132, 4);
  EXPECT_EQ(p.dp_tiles, 264);
  EXPECT_EQ(p.sk_ctas, 0);
  // Fewer tiles than SMs is split-K: 16 tiles in 4 pieces each.
  p = work_plan(16, 64, 64, 4);
  EXPECT_EQ(p.dp_tiles, 0);
  EXPECT_EQ(p.sk_ctas, 64);
  EXPECT_EQ(p.sk_share, 16);
}

TEST(Sm90WorkPlan, RefusesMoreKTilesThanThirtyTwoBitsCount) {
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { work_plan(1 << 20, 1 << 11, 132, 2); }), "2^31"));
}

TEST(Sm90FastDivisor, AgreesWithDivision) {
  std::vector<int64_t> numerators = {0, 1, 2, 3, 63, 64, 65, 1000, 65535, 65536, 1 << 20, 123456789, (1LL << 31) - 1};
  for (int d = 1; d <= 4096; ++d) {
    const FastDivisor f = fast_divisor(d);
    for (int64_t n : numerators) ASSERT_EQ(f.divide(n), n / d) << n << " / " << d;
    for (int64_t q : {int64_t(1), int64_t(7), int64_t(1000)})
      for (int64_t n : {q * d - 1, q * d, q * d + 1})
        if (n >= 0 && n < (1LL << 31)) ASSERT_EQ(f.divide(n), n / d) << n << " / " << d;
  }
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { fast_divisor(0); }), "not a positive divisor"));
}

}  // namespace
}  // namespace tilewise::sm90
