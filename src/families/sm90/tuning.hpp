#pragma once
// The sm90 family as the tuner's search space. Five groups, in order of impact:
//   tile      block_m, block_n, consumers, schedule,  the partition of C over CTAs and warpgroups: arithmetic
//             swap                                    intensity and how many SMs the grid fills
//   pipeline  stages, store                           how deep the TMA ring is and how the epilogue leaves; they
//                                                      trade against each other for the same shared memory
//   mapping   raster, group, cluster                  which tiles run together: L2 reuse and multicast, the kernel
//                                                      body unchanged
//   split     split                                   stream-K: the last partial wave (or all of a short one) cut
//                                                      along K over the grid
//   launch    pdl                                     programmatic dependent launch: setup and first loads overlap
//                                                      the kernel before
// Each group lists only the values that appear in some feasible configuration for the problem; whole candidates are
// filtered by sm90::infeasible, since a tile that fits beside four stages may not fit beside the incumbent's eight.
// Such a candidate is refitted (fewer stages, then a smaller store) rather than dropped, so the tile round can reach
// the large tiles; the pipeline round after it tunes the depth again.
#include <optional>

#include "families/sm90/feasibility.hpp"
#include "families/space.hpp"

namespace tilewise::sm90 {

// Throws Unsupported when the problem has no feasible sm90 configuration (a stride TMA cannot load).
families::Space space(const Problem& p, const Limits& limits = {});
// The space with `start` as the warm start, or sm90::first_rule without one. A start lets a descent begin where one
// round at a time cannot get from the rule: a point whose fields only work together. sn_64_pf's swapped 64x64 tile
// wins with two K pieces and 12 stages, but the tile round judged it refitted to the incumbent's split and depth
// (four pieces, eight stages), and the split and pipeline rounds move only from the tile the tile round kept.
families::Tunable tunable(const Problem& p, const Limits& limits = {}, const std::optional<Config>& start = {});

families::Fields tuner_fields(const Config& c);  // the canonical string, with swap and pdl written out also when 0
Config from_fields(const families::Fields& f);

}  // namespace tilewise::sm90
