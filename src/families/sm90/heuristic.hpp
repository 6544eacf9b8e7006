#pragma once
// The first shape rule, the sm90 family's heuristic: from a ladder of tiles and splits, the one whose persistent grid
// keeps the most SM-waves busy, weighted by the tile's measured rate, as the seeds choose tiles from the shape. Its
// constants are fitted to a sweep of every choice it can make (`tilewise fit`).
#include <vector>

#include "core/problem.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"

namespace tilewise::sm90 {

// The rule's constants, as `tilewise fit` fits them to a sweep receipt (src/families/sm90/rule_fit.hpp). The defaults
// are the fit to results/sm90-sweep-fitted-warm.json with the swapped tiles held out (`tilewise fit --hold-swapped`;
// docs/notes/2026-12-04-sm90-wave-widths.md); the ladder's rates were first fitted to results/sm90-sweep-warm.json
// (docs/notes/2026-12-03-family-rules.md).
struct RuleParams {
  // Throughput per SM at full waves of the ladder's tiles 256x128, 192x128, 128x128 (two consumers), 128x64 and
  // 64x64 (one), relative to 128x128.
  double rates[5] = {1.0, 1.0, 1.0, 0.88, 0.5};
  double stream_k_worth = 1.0;    // a last wave split along K (stream-K) against whole tiles: its fixup
  double split_k_worth = 0.85;    // a full wave's throughput split-K keeps after its fixup
  int min_k_tiles_per_piece = 16; // the fewest k-tiles a split piece needs to pay for its fixup
  double split_k_below = 0.5;     // split-K only where whole tiles keep less than this share of the grid busy
  // Throughput per SM of a swapped tile (TN with few tokens as N: the tokens on the wgmma width, fitted to their
  // count, the features on the 64-row side), relative to 128x128. 0: the rule does not swap. Held there: the fit to
  // results/sm90-sweep-fitted-warm.json rates them 0.70 on three problems, one of them slower for it, and the fit to
  // the nn.Linear gap cases (results/sm90-gaps-cold.json) 0 (docs/notes/2026-12-04-sm90-wave-widths.md).
  double swapped_rate = 0.0;
  // Throughput per SM of a width fitted to whole waves (128 rows, 144-200 wide, the staged store), relative to
  // 128x128; 0 takes none. The sweep bounds it from below: from 0.92 to 1.0 the rule chooses alike there, and 0.92
  // is the lowest rate on the fit's grid that picks the fastest candidate.
  double fitted_rate = 0.92;
  // The same for one consumer's 64-row tiles, 72-120 wide, relative to 128x128; 0 takes none. Unrated on the H200:
  // 72 x 64 ran 1.095x the rule's 128 x 64 on 768^3 (results/protocol-sm90-wave-widths.json), and a power-capped
  // H100's sweep rated them 0.74 but slowed three of seven held-out problems it changed, and a second H100 round two
  // of three fresh ones (docs/notes/2026-12-07-sm90-one-consumer-rate.md).
  double fitted_one_consumer_rate = 0.0;
  // The fewest k-tiles a problem needs before those one-consumer widths are taken: a 64-row tile's fixed costs (its
  // prologue, the staged store) weigh more on a short k-loop. The H100's three held-out losses had 6-10 k-tiles;
  // fitted with the rate.
  int fitted_one_consumer_min_k_tiles = 0;
  bool operator==(const RuleParams&) const = default;
};

// What the rule decides from the shape: the tile and how far to split K (split-K below one wave, stream-K's last
// wave above). The pipeline is then filled in by complete().
struct TileChoice {
  int block_m = 0, block_n = 0, consumers = 0, split = 1;
  bool swap = false;  // the operands swapped: block_m runs along the problem's N, block_n along its M
  auto operator<=>(const TileChoice&) const = default;
};

// Whether a tile of `block_m` is a width fitted to whole waves: past 64 and not whole 64-column atoms (the TMA store
// needs those, so such a tile takes the staged store). Swapped tiles' widths are the tokens', not fitted ones.
bool is_fitted_width(int block_m, bool swap);

// Throws Unsupported when the problem has none (a stride TMA cannot load).
TileChoice choose_tile(const Problem& p, const Limits& limits = {}, const RuleParams& params = {});
// The choice as a feasible configuration: the TMA store while it still leaves four stages, else the deepest ring.
Config complete(const Problem& p, const Limits& limits, const TileChoice& choice);
// `c` launched as the rule launches it: as a programmatic dependent where its grid leaves half the SMs idle.
Config launched(const Problem& p, const Limits& limits, Config c);
// launched(complete(choose_tile(...))).
Config first_rule(const Problem& p, const Limits& limits = {}, const RuleParams& params = {});
// Every configuration first_rule can return for `p` under constants that use the rungs `params` uses (a rung rated 0
// is out of use: the swapped tiles, held at 0): each rung of the ladder (or the narrow width), and the fitted widths,
// at each split it considers. What first-use tuning times.
std::vector<Config> rule_candidates(const Problem& p, const Limits& limits = {}, const RuleParams& params = {});
// Those and the rungs out of use (the swapped tiles where the problem has few tokens as N): what a sweep times to fit
// the rule, `sm90:sweep`.
std::vector<Config> sweep_candidates(const Problem& p, const Limits& limits = {});

}  // namespace tilewise::sm90
