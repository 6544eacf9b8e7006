#pragma once
// The one-shot grid, kept for comparison with the descent (seed 003: a grid came back slower than the untuned
// default in 109 of 144 GEMMs): the product of every group's alternatives at once, over the warm start's other
// fields, capped, timed in one go, the fastest kept. The warm start is timed beside every point as the reference
// the points are compared through, but cannot win: the grid keeps no floor, so nothing keeps it above its start.
#include <cstdint>

#include "tune/space.hpp"
#include "tune/trajectory.hpp"

namespace tilewise::tune {

struct GridOptions {
  int cap = 10000;    // at most this many legal candidates are timed
  uint64_t seed = 1;  // the order the product is walked in, so a capped grid is a sample, not the first corner
};

// The i-th point of the product (mixed radix over the groups, the first group varying slowest) applied to `base`.
Config grid_point(const Space& s, const Config& base, uint64_t i);

// Runs the grid as one round named "grid" (enumerated: points walked; legal: those feasible, at most the cap; the
// reference not counted) and marks the case finished. Throws Error when the warm start or no point could be timed.
void grid(CaseResult& state, const Tunable& t, Measure& measure, const GridOptions& options);

}  // namespace tilewise::tune
