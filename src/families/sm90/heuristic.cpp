#include "families/sm90/heuristic.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

struct Rung {
  int block_m, block_n, consumers;
};
// Largest first, stepping down while the grid would leave more than a tenth of the SMs idle (sq2048 cuts 256
// tiles of 128x128 for 132 SMs). 128x128 shared by two consumers with a six-stage ring and the TMA store measured
// ahead of the 256x128 tile, which fits only three stages beside its store tile (results/logs/sm90-round*).
constexpr Rung kLadder[] = {{128, 128, 2}, {128, 64, 1}, {64, 64, 1}};

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
  Rung rung = kLadder[std::size(kLadder) - 1];
  for (const Rung& r : kLadder)
    if (10 * tiles(p, r.block_m, r.block_n) >= 9 * int64_t(limits.sm_count)) {
      rung = r;
      break;
    }
  if (p.M < 64 && p.layout == Layout::TN) rung = {narrow_width(p.M), 64, 1};
  Config c;
  c.block_m = rung.block_m;
  c.block_n = rung.block_n;
  c.consumers = rung.consumers;
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
