#include "families/sm90/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>

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

int64_t tiles(const Problem& p, int bm, int bn) { return ((p.M + bm - 1) / bm) * ((p.N + bn - 1) / bn); }

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
  auto worth = [&](const Rung& r) {
    const int64_t t = tiles(p, r.block_m, r.block_n);
    const int64_t waves = (t + limits.sm_count - 1) / limits.sm_count;
    return r.rate * double(t) / double(waves * limits.sm_count);
  };
  double best = 0;
  for (const Rung& r : kLadder) best = std::max(best, worth(r));
  Rung rung = kLadder[0];
  for (const Rung& r : kLadder)
    if (worth(r) >= 0.98 * best) {
      rung = r;
      break;
    }
  // Where no tile fills the waves well, stream-K on 128x128 tiles deals the k-tiles of the last wave over the whole
  // grid, for about 0.9 of full-wave throughput (sq2560: 56.0 us against 63.0-64.7 for every whole-tile choice,
  // results/logs/sm90-explore/stream-k.md). Only with at least two waves of tiles: below that the fixup, about 3 us,
  // costs more than the idle SMs (sq1536: 18.5 against 14.2 us).
  int split = 1;
  const Rung streamed{128, 128, 2, 1.0};
  if (best < kStreamKWorth && tiles(p, streamed.block_m, streamed.block_n) >= 2 * int64_t(limits.sm_count)) {
    rung = streamed;
    split = 2;
  }
  if (p.M < 64 && p.layout == Layout::TN) rung = {narrow_width(p.M), 64, 1}, split = 1;
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
