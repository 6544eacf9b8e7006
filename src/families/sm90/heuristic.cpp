#include "families/sm90/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

struct Rung {
  int block_m, block_n, consumers;
  // Index into RuleParams::rates; -1: the narrow width, rated 1; -2: a swapped tile (swapped_rate); -3 and -4: a
  // width fitted to whole waves of two consumers' 128-row tiles (fitted_rate) or one's 64-row tiles
  // (fitted_one_consumer_rate), which runs unsplit.
  int rate;
  bool swap = false;
};
constexpr int kNarrowRate = -1, kSwappedRate = -2, kFittedRate = -3, kFittedOneConsumerRate = -4;
// Largest tiles first, each rated by its throughput per SM at full waves (RuleParams; measured on sq3072, where every
// tile runs several waves: docs/notes/2026-12-03-family-rules.md, "sm90's first shape rule").
constexpr Rung kLadder[] = {{256, 128, 2, 0}, {192, 128, 2, 1}, {128, 128, 2, 2}, {128, 64, 1, 3}, {64, 64, 1, 4}};
// Whole tiles first, then the smaller splits (up to the largest measured): the cheapest choice within 2% of the best.
// A split pays only with pieces long enough for its fixup and where whole tiles leave much of the grid idle.
constexpr int kSplits[] = {1, 2, 3, 4};

// The narrowest wgmma width that covers a small M (decode-like shapes), so no tensor-core work is wasted on rows
// that do not exist.
int narrow_width(int64_t M) {
  for (int w : {8, 16, 32, 48}) if (M <= w) return w;
  return 64;
}

bool is_narrow(const Problem& p) { return p.M < 64 && p.layout == Layout::TN; }

// nn.Linear's orientation puts the tokens on N, which the unswapped tile covers in whole 64-row units (142 tokens:
// three tiles of 64, a quarter of them empty). Swapped operands put them on the wgmma width instead, in steps of 8:
// the width that covers N in the fewest tiles and in one more, on a 64-row (one consumer) or 128-row (two) feature
// side. Past 1024 tokens the ladder's rows waste little.
constexpr int64_t kMaxSwappedTokens = 1024;

bool takes_swapped(const Problem& p) { return p.layout == Layout::TN && p.M >= 64 && p.N <= kMaxSwappedTokens; }

void add_swapped(const Problem& p, std::vector<Rung>& rungs) {
  // The widest tile each side takes at every split: one consumer past 224 spilled beside stream-K, two consumers
  // past 248 (feasibility.cpp).
  for (auto [rows, consumers, widest] : {std::array{64, 1, 224}, std::array{128, 2, 248}}) {
    const int64_t fewest = (p.N + widest - 1) / widest;
    for (int64_t tiles : {fewest, fewest + 1}) {
      const int width = int((p.N + tiles - 1) / tiles + 7) / 8 * 8;
      const Rung r{width, rows, consumers, kSwappedRate, true};
      const bool seen = std::any_of(rungs.begin(), rungs.end(), [&](const Rung& o) {
        return o.swap && o.block_m == r.block_m && o.block_n == r.block_n;
      });
      if (!seen) rungs.push_back(r);
    }
  }
}

// The ladder's powers of two fill the SMs' waves badly on some shapes (1536^3: 96 tiles of 192 x 128 on 132 SMs).
// A width between the ladder's can make whole waves instead: for one or two waves of 128-row tiles (two consumers),
// the narrowest multiple of 8 that covers M in as many tiles as fit beside N's. As measured: 144 to 200 wide, 16-bit
// TN (A K-major: an M-major A loads whole 64-column atoms), with the staged store that widths which are not whole
// atoms take. Not for three waves, nor for an ldc the TMA store could not write, nor for N in one column tile: each
// measured slower than the ladder's tile on most of the problems that had it
// (docs/notes/2026-12-04-sm90-wave-widths.md, "After the judge"). One consumer's 64-row tiles, 72 to 120 wide, the
// same way (768^3: 11 x 12 tiles of 72 x 64).
struct FittedTiles {
  int rows, consumers, narrowest, widest, rate;
};
constexpr FittedTiles kFittedTiles[] = {{128, 2, 144, 200, kFittedRate}, {64, 1, 72, 120, kFittedOneConsumerRate}};
constexpr int kFittedWaves = 2;

bool takes_fitted(const Problem& p, const FittedTiles& f) {
  return p.layout == Layout::TN && (p.dtype == DType::bf16 || p.dtype == DType::fp16) && p.ldc % 8 == 0 &&
         p.N > f.rows;
}

void add_fitted(const Problem& p, int64_t sms, const FittedTiles& f, std::vector<Rung>& rungs) {
  const int64_t n_tiles = (p.N + f.rows - 1) / f.rows;
  for (int64_t waves = 1; waves <= kFittedWaves; ++waves) {
    const int64_t m_tiles = waves * sms / n_tiles;
    if (m_tiles < 1) continue;
    const int64_t width = ((p.M + m_tiles - 1) / m_tiles + 7) / 8 * 8;
    if (width < f.narrowest || width > f.widest || width % 64 == 0) continue;
    const Rung r{int(width), f.rows, f.consumers, f.rate};
    const bool seen = std::any_of(rungs.begin(), rungs.end(),
                                  [&](const Rung& o) { return o.rate == r.rate && o.block_m == r.block_m; });
    if (!seen) rungs.push_back(r);
  }
}

bool is_fitted(const Rung& r) { return r.rate == kFittedRate || r.rate == kFittedOneConsumerRate; }

// Decode-like shapes take the narrowest wgmma width that covers M; the ladder serves the rest, 16-bit TN also the
// widths fitted to whole waves, and few tokens as N also the swapped rungs, after the ladder so that within 2% a
// ladder tile wins.
std::vector<Rung> rungs_for(const Problem& p, int64_t sms) {
  if (is_narrow(p)) return {{narrow_width(p.M), 64, 1, kNarrowRate}};
  std::vector<Rung> rungs(std::begin(kLadder), std::end(kLadder));
  for (const FittedTiles& f : kFittedTiles)
    if (takes_fitted(p, f)) add_fitted(p, sms, f, rungs);
  if (takes_swapped(p)) add_swapped(p, rungs);
  return rungs;
}

// A fitted width runs unsplit: it is there to fill whole waves, which a split changes.
bool splits(const Rung& r, int split) { return split == 1 || !is_fitted(r); }

TileChoice choice_of(const Rung& r, int split) { return {r.block_m, r.block_n, r.consumers, split, r.swap}; }

// The output tiles of a rung: a swapped tile's width runs along N, its rows along M.
int64_t tiles_of(const Problem& p, const Rung& r) {
  return r.swap ? tile_count(p, r.block_n, r.block_m) : tile_count(p, r.block_m, r.block_n);
}

// `k`: the problem's k-tiles, which one consumer's widths need enough of.
double rate_of(const Rung& r, int64_t k, const RuleParams& params) {
  switch (r.rate) {
    case kNarrowRate: return 1.0;
    case kSwappedRate: return params.swapped_rate;
    case kFittedRate: return params.fitted_rate;
    case kFittedOneConsumerRate:
      return k >= params.fitted_one_consumer_min_k_tiles ? params.fitted_one_consumer_rate : 0.0;
    default: return params.rates[r.rate];
  }
}

}  // namespace

TileChoice choose_tile(const Problem& p, const Limits& limits, const RuleParams& params) {
  require_tma_expressible(p);
  // A persistent grid runs ceil(tiles / SMs) waves whatever the last one holds, so a tile is worth the share of the
  // SM-waves it keeps busy times its rate. Within 2% of the best, the larger tile wins: fewer waves, and a last
  // partial wave runs at the higher clocks of a GPU under less load.
  const int64_t sms = limits.sm_count;
  const int64_t k = k_tiles(p);
  // Tiles that overhang the problem (N = 16 on a 64-row tile) multiply zeros: only the covered share counts.
  auto worth = [&](const Rung& r, int split) {
    const double rate = rate_of(r, k, params);
    const int64_t t = tiles_of(p, r);
    const double covered = double(p.M) * double(p.N) / (double(t) * r.block_m * r.block_n);
    if (split == 1) return rate * covered * double(t) / double((t + sms - 1) / sms * sms);
    // A split only pays with pieces long enough for their fixup.
    if (k / split < params.min_k_tiles_per_piece) return 0.0;
    // Below one wave, split-K fills the idle SMs.
    if (t < sms) return rate * covered * params.split_k_worth * double(std::min(t * split, sms)) / double(sms);
    // Above, stream-K cuts the last partial wave's tiles along K over the whole grid: that wave takes
    // ceil(tail * split / SMs) / split of a wave, at stream-K's worth.
    const int64_t tail = t % sms;
    if (tail == 0) return 0.0;
    const double last_wave = double((tail * split + sms - 1) / sms) / split / params.stream_k_worth;
    return rate * covered * double(t) / (double(sms) * (double(t / sms) + last_wave));
  };
  const std::vector<Rung> rungs = rungs_for(p, sms);
  double whole = 0;
  for (const Rung& r : rungs) whole = std::max(whole, worth(r, 1));
  // Split-K below one wave only where no whole tile keeps enough of the grid busy.
  auto considered = [&](const Rung& r, int split) {
    return split == 1 || tiles_of(p, r) >= sms || whole < params.split_k_below;
  };
  // The options in order of preference: larger tiles first, then smaller splits.
  struct Option {
    TileChoice choice;
    double worth;
  };
  std::vector<Option> options;
  for (const Rung& r : rungs)
    for (int split : kSplits)
      if (splits(r, split) && considered(r, split)) options.push_back({choice_of(r, split), worth(r, split)});
  const double best =
      std::max_element(options.begin(), options.end(), [](auto& a, auto& b) { return a.worth < b.worth; })->worth;
  return std::find_if(options.begin(), options.end(), [&](auto& o) { return o.worth >= 0.98 * best; })->choice;
}

bool is_fitted_width(int block_m, bool swap) { return !swap && block_m > 64 && block_m % 64 != 0; }

// The choice with the rule's stages and store: the TMA store when it still leaves four stages; otherwise the ring's
// depth matters more than the store width. A fitted width, not whole 64-column atoms, which the TMA store needs,
// takes the staged store where four stages fit, as measured (0.99-1.01x of the TMA store on a ladder tile).
Config complete(const Problem& p, const Limits& limits, const TileChoice& choice) {
  Config c;
  c.block_m = choice.block_m;
  c.block_n = choice.block_n;
  c.consumers = choice.consumers;
  c.split = choice.split;
  c.swap = choice.swap;
  c.raster = Raster::m;
  c.group = 8;
  const std::vector<Store> stores = is_fitted_width(choice.block_m, choice.swap)
                                       ? std::vector{Store::staged, Store::direct}
                                       : std::vector{Store::tma, Store::tma_ring, Store::direct};
  for (Store store : stores)
    for (int stages = 8; stages >= 2; --stages) {
      c.store = store;
      c.stages = stages;
      if (!infeasible(c, p, limits) && (store == Store::direct || stages >= 4)) return c;
    }
  throw Unsupported(fmt::format("sm90: no feasible configuration for {}", describe(p)));
}

Config launched(const Problem& p, const Limits& limits, Config c) {
  // A grid that leaves half the SMs or more idle launches as a programmatic dependent, so its CTAs start on the idle
  // SMs during the kernel before it; larger grids mostly measured slower so
  // (docs/notes/2026-12-04-sm90-small-grid-pdl.md). Packed weights are never launched so (feasibility.cpp).
  const int64_t ctas = tile_count(kernel_view(p, c), c.block_m, c.block_n) * c.split;
  c.pdl = c.weights == Weights::as_input && ctas <= limits.sm_count / 2;
  return c;
}

Config first_rule(const Problem& p, const Limits& limits, const RuleParams& params) {
  return launched(p, limits, complete(p, limits, choose_tile(p, limits, params)));
}

namespace {

// Each rung `p` has (those in use: rate_of > 0 under `params`, or every one) at each split, completed.
std::vector<Config> candidates(const Problem& p, const Limits& limits, const RuleParams* params) {
  require_tma_expressible(p);
  std::vector<Config> out;
  const int64_t k = k_tiles(p);
  for (const Rung& r : rungs_for(p, limits.sm_count)) {
    if (params && rate_of(r, k, *params) <= 0) continue;
    for (int split : kSplits) try {
        if (!splits(r, split)) continue;
        const Config c = launched(p, limits, complete(p, limits, choice_of(r, split)));
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      } catch (const Unsupported&) {  // a rung the problem cannot take is no candidate
      }
  }
  return out;
}

}  // namespace

std::vector<Config> rule_candidates(const Problem& p, const Limits& limits, const RuleParams& params) {
  return candidates(p, limits, &params);
}

std::vector<Config> sweep_candidates(const Problem& p, const Limits& limits) { return candidates(p, limits, nullptr); }

}  // namespace tilewise::sm90
