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
// The defaults' evidence before the sweep fit them (results/sm90-sweep-warm.json; the fit moved only stream-K's
// worth, from 0.88 to 1). Split-K below one wave keeps a full wave's throughput less its fixup (each piece's fp32
// partial written, flagged and read back, about 3 us) where each piece has 16 k-tiles (results/llm24-streamk-cold.json:
// sn_16_dec 0.53x -> 0.87x of cuBLASLt at split 4, d4k_down_dec 0.85x -> 0.97x at split 2, sn_16_pf 0.52x -> 0.78x
// with 128x64 at split 2; sqS with 8 k-tiles only loses), and only where whole tiles leave at least half the grid
// idle (fatK and sn_256_pf, whose whole tiles fill 0.85, lost 10% at split 2 and 35% at split 4).
// Whole tiles first, then the smaller splits (up to the largest measured): the cheapest choice within 2% of the best.
constexpr int kSplits[] = {1, 2, 3, 4};

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

TileChoice choice_of(const Rung& r, int split) { return {r.block_m, r.block_n, r.consumers, split}; }

}  // namespace

TileChoice choose_tile(const Problem& p, const Limits& limits, const RuleParams& params) {
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
    // A split only pays with pieces long enough for their fixup.
    if (k / split < params.min_k_tiles_per_piece) return 0.0;
    // Below one wave, split-K fills the idle SMs.
    if (t < sms) return rate * covered * params.split_k_worth * double(std::min(t * split, sms)) / double(sms);
    // Above, stream-K cuts the last partial wave's tiles along K over the whole grid (results/logs/sm90-explore/
    // stream-k.md): that wave takes ceil(tail * split / SMs) / split of a wave, at stream-K's worth.
    const int64_t tail = t % sms;
    if (tail == 0) return 0.0;
    const double last_wave = double((tail * split + sms - 1) / sms) / split / params.stream_k_worth;
    return rate * covered * double(t) / (double(sms) * (double(t / sms) + last_wave));
  };
  const std::vector<Rung> rungs = rungs_for(p);
  double whole = 0;
  for (const Rung& r : rungs) whole = std::max(whole, worth(r, 1));
  // Split-K below one wave only where no whole tile keeps enough of the grid busy.
  auto considered = [&](const Rung& r, int split) {
    return split == 1 || tile_count(p, r.block_m, r.block_n) >= sms || whole < params.split_k_below;
  };
  // The options in order of preference: larger tiles first, then smaller splits.
  struct Option {
    TileChoice choice;
    double worth;
  };
  std::vector<Option> options;
  for (const Rung& r : rungs)
    for (int split : kSplits)
      if (considered(r, split)) options.push_back({choice_of(r, split), worth(r, split)});
  const double best =
      std::max_element(options.begin(), options.end(), [](auto& a, auto& b) { return a.worth < b.worth; })->worth;
  return std::find_if(options.begin(), options.end(), [&](auto& o) { return o.worth >= 0.98 * best; })->choice;
}

// The choice with the rule's stages and store: the TMA store when it still leaves four stages; otherwise the ring's
// depth matters more than the store width.
Config complete(const Problem& p, const Limits& limits, const TileChoice& choice) {
  Config c;
  c.block_m = choice.block_m;
  c.block_n = choice.block_n;
  c.consumers = choice.consumers;
  c.split = choice.split;
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

Config first_rule(const Problem& p, const Limits& limits, const RuleParams& params) {
  return complete(p, limits, choose_tile(p, limits, params));
}

std::vector<Config> rule_candidates(const Problem& p, const Limits& limits) {
  require_tma_expressible(p);
  std::vector<Config> out;
  for (const Rung& r : rungs_for(p))
    for (int split : kSplits) try {
        const Config c = complete(p, limits, choice_of(r, split));
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      } catch (const Unsupported&) {  // a rung the problem cannot take is no candidate
      }
  return out;
}

}  // namespace tilewise::sm90
