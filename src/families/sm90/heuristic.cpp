#include "families/sm90/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

struct Rung {
  int block_m, block_n, consumers;
  int rate;  // index into RuleParams::rates; -1: the narrow width, rated 1
};
// Largest tiles first. The measured rates (RuleParams' defaults) come from sq3072 (results/logs/sm90-explore/
// round-12.log), where every tile runs several waves: the two-consumer tiles move about the same FLOP per
// SM-second; one consumer on 128x64 about 0.88 of that and on 64x64 about half.
constexpr Rung kLadder[] = {{256, 128, 2, 0}, {192, 128, 2, 1}, {128, 128, 2, 2}, {128, 64, 1, 3}, {64, 64, 1, 4}};
// The defaults' evidence. Stream-K's worth: the fixup and the shared last wave cost about a tenth (sq2560: 56.0 us,
// where 256x128 in waves filled to 0.76 took 63-64.7 us). Split-K below one wave keeps a full wave's throughput
// less its fixup (each piece's fp32 partial written, flagged and read back, about 3 us) where each piece has 16
// k-tiles (results/llm24-streamk-cold.json: sn_16_dec 0.53x -> 0.87x of cuBLASLt at split 4, d4k_down_dec 0.85x ->
// 0.97x at split 2, sn_16_pf 0.52x -> 0.78x with 128x64 at split 2; sqS with 8 k-tiles only loses), and only where
// whole tiles leave at least half the grid idle (fatK and sn_256_pf, whose whole tiles fill 0.85, lost 10% at
// split 2 and 35% at split 4).
// Whole tiles first, then the smaller splits (up to the largest measured): the cheapest choice within 2% of the best.
constexpr int kSplits[] = {1, 2, 3, 4};
const Rung kStreamed{128, 128, 2, 2};

// The narrowest wgmma width that covers a small M (decode-like shapes), so no tensor-core work is wasted on rows
// that do not exist.
int narrow_width(int64_t M) {
  for (int w : {8, 16, 32, 48}) if (M <= w) return w;
  return 64;
}

bool is_narrow(const Problem& p) { return p.M < 64 && p.layout == Layout::TN; }

// Decode-like shapes take the narrowest wgmma width that covers M; the ladder serves the rest.
std::vector<Rung> rungs_for(const Problem& p) {
  if (is_narrow(p)) return {{narrow_width(p.M), 64, 1, -1}};
  return {std::begin(kLadder), std::end(kLadder)};
}

// The rung at the split, with the rule's stages and store: the TMA store when it still leaves four stages; otherwise
// the ring's depth matters more than the store width.
Config complete(const Problem& p, const Limits& limits, const Rung& rung, int split) {
  Config c;
  c.block_m = rung.block_m;
  c.block_n = rung.block_n;
  c.consumers = rung.consumers;
  c.split = split;
  c.raster = Raster::m;
  c.group = 8;
  for (Store store : {Store::tma, Store::tma_ring, Store::direct})
    for (int stages = 8; stages >= 2; --stages) {
      c.store = store;
      c.stages = stages;
      if (!infeasible(c, p, limits) && (store == Store::direct || stages >= 4)) return c;
    }
  throw Unsupported(fmt::format("sm90: no feasible configuration for {}", describe(p)));
}

}  // namespace

Config first_rule(const Problem& p, const Limits& limits, const RuleParams& params) {
  require_tma_expressible(p);
  // A persistent grid runs ceil(tiles / SMs) waves whatever the last one holds, so a tile is worth the share of the
  // SM-waves it keeps busy times its rate. Within 2% of the best, the larger tile wins: fewer waves, and a last
  // partial wave runs at the higher clocks of a GPU under less load (sq2560: 256x128 in two waves beat 128x128 in
  // four, 60.9 against 64.7 us).
  const int64_t sms = limits.sm_count;
  const int64_t k = k_tiles(p);
  // Tiles that overhang the problem (N = 16 on a 64-row tile) multiply zeros: only the covered share counts.
  auto worth = [&](const Rung& r, int split) {
    const double rate = r.rate < 0 ? 1.0 : params.rates[r.rate];
    const int64_t t = tile_count(p, r.block_m, r.block_n);
    const double covered = double(p.M) * double(p.N) / (double(t) * r.block_m * r.block_n);
    if (split == 1) return rate * covered * double(t) / double((t + sms - 1) / sms * sms);
    // Split-K: only below one wave, and only with pieces long enough to pay for their fixup.
    if (t >= sms || k / split < params.min_k_tiles_per_piece) return 0.0;
    return rate * covered * params.split_k_worth * double(std::min(t * split, sms)) / double(sms);
  };
  const std::vector<Rung> rungs = rungs_for(p);
  double best = 0;
  for (const Rung& r : rungs) best = std::max(best, worth(r, 1));
  const int splits = best < params.split_k_below ? int(std::size(kSplits)) : 1;
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
  if (split == 1 && !is_narrow(p) && best < params.stream_k_worth &&
      tile_count(p, kStreamed.block_m, kStreamed.block_n) >= 2 * sms) {
    rung = kStreamed;
    split = 2;
  }
  return complete(p, limits, rung, split);
}

std::vector<Config> rule_candidates(const Problem& p, const Limits& limits) {
  require_tma_expressible(p);
  std::vector<Config> out;
  auto add = [&](const Rung& r, int split) {
    try {
      const Config c = complete(p, limits, r, split);
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    } catch (const Unsupported&) {  // a rung the problem cannot take is no candidate
    }
  };
  for (const Rung& r : rungs_for(p))
    for (int split : kSplits) add(r, split);
  if (!is_narrow(p)) add(kStreamed, 2);
  return out;
}

}  // namespace tilewise::sm90
