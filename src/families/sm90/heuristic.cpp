#include "families/sm90/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

struct Rung {
  int block_m, block_n, consumers;
  double rate;  // throughput per SM relative to the two-consumer tiles, measured at full waves
};
// Largest tiles first. The rates come from sq3072 (results/logs/sm90-explore/round-12.log), where every tile runs
// several waves: the two-consumer tiles move about the same FLOP per SM-second; one consumer on 128x64 about 0.88 of
// that and on 64x64 about half.
constexpr Rung kLadder[] = {
    {256, 128, 2, 1.0}, {192, 128, 2, 1.0}, {128, 128, 2, 1.0}, {128, 64, 1, 0.88}, {64, 64, 1, 0.5}};

// What stream-K's 128x128 tiles are worth against whole-tile waves: the fixup and the shared last wave cost about
// a tenth (sq2560: 56.0 us, where 256x128 in waves filled to 0.76 took 63-64.7 us).
constexpr double kStreamKWorth = 0.88;
// Split-K below one wave: the share of a full wave's throughput left after the fixup (each piece's fp32 partial
// written, flagged and read back, about 3 us), and the fewest k-tiles a piece needs for that to hold. From
// results/llm24-streamk-cold.json: sn_16_dec 0.53x -> 0.87x of cuBLASLt at split 4, d4k_down_dec 0.85x -> 0.97x at
// split 2, sn_16_pf 0.52x -> 0.78x with 128x64 at split 2; sqS (8 k-tiles) only loses.
constexpr double kSplitKWorth = 0.85;
constexpr int kMinKTilesPerPiece = 16;
// ... and only where whole tiles leave at least half the grid idle: fatK and sn_256_pf, whose whole tiles fill 0.85,
// lost 10% at split 2 and 35% at split 4.
constexpr double kSplitKBelow = 0.5;
// Whole tiles first, then the smaller splits (up to the largest measured): the cheapest choice within 2% of the best.
constexpr int kSplits[] = {1, 2, 3, 4};

// The narrowest wgmma width that covers a small M (decode-like shapes), so no tensor-core work is wasted on rows
// that do not exist.
int narrow_width(int64_t M) {
  for (int w : {8, 16, 32, 48}) if (M <= w) return w;
  return 64;
}

}  // namespace

Config first_rule(const Problem& p, const Limits& limits) {
  require_tma_expressible(p);
  // A persistent grid runs ceil(tiles / SMs) waves whatever the last one holds, so a tile is worth the share of the
  // SM-waves it keeps busy times its rate. Within 2% of the best, the larger tile wins: fewer waves, and a last
  // partial wave runs at the higher clocks of a GPU under less load (sq2560: 256x128 in two waves beat 128x128 in
  // four, 60.9 against 64.7 us).
  const int64_t sms = limits.sm_count;
  const int64_t k = k_tiles(p);
  // Tiles that overhang the problem (N = 16 on a 64-row tile) multiply zeros: only the covered share counts.
  auto worth = [&](const Rung& r, int split) {
    const int64_t t = tile_count(p, r.block_m, r.block_n);
    const double covered = double(p.M) * double(p.N) / (double(t) * r.block_m * r.block_n);
    if (split == 1) return r.rate * covered * double(t) / double((t + sms - 1) / sms * sms);
    // Split-K: only below one wave, and only with pieces long enough to pay for their fixup.
    if (t >= sms || k / split < kMinKTilesPerPiece) return 0.0;
    return r.rate * covered * kSplitKWorth * double(std::min(t * split, sms)) / double(sms);
  };
  // Decode-like shapes take the narrowest wgmma width that covers M; the ladder serves the rest.
  const bool narrow = p.M < 64 && p.layout == Layout::TN;
  std::vector<Rung> rungs(std::begin(kLadder), std::end(kLadder));
  if (narrow) rungs = {{narrow_width(p.M), 64, 1, 1.0}};
  double best = 0;
  for (const Rung& r : rungs) best = std::max(best, worth(r, 1));
  const int splits = best < kSplitKBelow ? int(std::size(kSplits)) : 1;
  for (const Rung& r : rungs)
    for (int i = 1; i < splits; ++i) best = std::max(best, worth(r, kSplits[i]));
  Rung rung = rungs.front();
  int split = 1;
  for (const Rung& r : rungs) {
    auto it = std::find_if(kSplits, kSplits + splits, [&](int s) { return worth(r, s) >= 0.98 * best; });
    if (it != kSplits + splits) {
      rung = r;
      split = *it;
      break;
    }
  }
  // Where no tile fills its waves well, stream-K on 128x128 tiles deals the k-tiles of the last wave over the whole
  // grid (results/logs/sm90-explore/stream-k.md). Only with at least two waves of tiles: below that the fixup costs
  // more than the idle SMs (sq1536: 18.5 against 14.2 us).
  const Rung streamed{128, 128, 2, 1.0};
  if (split == 1 && !narrow && best < kStreamKWorth && tile_count(p, streamed.block_m, streamed.block_n) >= 2 * sms) {
    rung = streamed;
    split = 2;
  }
  Config c;
  c.block_m = rung.block_m;
  c.block_n = rung.block_n;
  c.consumers = rung.consumers;
  c.split = split;
  c.raster = Raster::m;
  c.group = 8;
  // The TMA store when it still leaves four stages; otherwise the ring's depth matters more than the store width.
  for (Store store : {Store::tma, Store::tma_ring, Store::direct})
    for (int stages = 8; stages >= 2; --stages) {
      c.store = store;
      c.stages = stages;
      if (!infeasible(c, p, limits) && (store == Store::direct || stages >= 4)) return c;
    }
  throw Unsupported(fmt::format("sm90: no feasible configuration for {}", describe(p)));
}

}  // namespace tilewise::sm90
