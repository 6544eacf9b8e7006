#pragma once
// The first shape rule (the selection issue replaces it with a fitted heuristic): from a ladder of tiles, the one
// whose persistent grid keeps the most SM-waves busy, weighted by the tile's measured rate, as the seeds choose
// tiles from the shape.
#include "core/problem.hpp"
#include "families/sm90/config.hpp"
#include "families/sm90/feasibility.hpp"

namespace tilewise::sm90 {

// A feasible configuration for `p`; throws Unsupported when the problem has none (a stride TMA cannot load).
Config first_rule(const Problem& p, const Limits& limits = {});

}  // namespace tilewise::sm90
