#pragma once
// The first shape rule (the selection issue replaces it with a fitted heuristic): from a ladder of tiles, the one
// whose persistent grid keeps the most SM-waves busy, weighted by the tile's measured rate, as the seeds choose
// tiles from the shape.
#include <vector>

#include "core/problem.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"

namespace tilewise::sm90 {

// The rule's constants, as `tilewise fit` fits them to a sweep receipt (src/families/sm90/rule_fit.hpp).
struct RuleParams {
  // Throughput per SM at full waves of the ladder's tiles 256x128, 192x128, 128x128 (two consumers), 128x64 and
  // 64x64 (one), relative to the largest.
  double rates[5] = {1.0, 1.0, 1.0, 0.88, 0.5};
  double stream_k_worth = 0.88;   // stream-K's 128x128 against whole-tile waves (its fixup and shared last wave)
  double split_k_worth = 0.85;    // a full wave's throughput split-K keeps after its fixup
  int min_k_tiles_per_piece = 16; // the fewest k-tiles a split-K piece needs to pay for its fixup
  double split_k_below = 0.5;     // split-K only where whole tiles keep less than this share of the grid busy
  bool operator==(const RuleParams&) const = default;
};

// A feasible configuration for `p`; throws Unsupported when the problem has none (a stride TMA cannot load).
Config first_rule(const Problem& p, const Limits& limits = {}, const RuleParams& params = {});
// Every configuration first_rule can return for `p` under any RuleParams: each rung of the ladder (or the narrow
// width) at each split it considers, and stream-K's 128x128. What a sweep times to fit the rule.
std::vector<Config> rule_candidates(const Problem& p, const Limits& limits = {});

}  // namespace tilewise::sm90
