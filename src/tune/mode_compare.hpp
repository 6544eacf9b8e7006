#pragma once
// The one-shot grid against the descent on the same cases (seed 003 compares them): per case, each mode's final
// latency, how many candidates it timed and its wall time, matched by case id across two campaigns. The two run one
// after the other, under clocks that drift between them, so each final latency is set against the warm start its own
// run timed first: the latency its trajectory ends at (at that first chunk's clocks) over that warm start.
#include <string>
#include <vector>

#include "tune/trajectory.hpp"

namespace tilewise::tune {

struct ModeRow {
  std::string id;
  double descent_start_us = 0, descent_us = 0, grid_start_us = 0, grid_us = 0;  // warm start, final latency
  int descent_timed = 0, grid_timed = 0;
  double descent_wall_s = 0, grid_wall_s = 0;
  // Over 1: the grid ended slower, each relative to its own run's warm start.
  double ratio() const { return (grid_us / grid_start_us) / (descent_us / descent_start_us); }
};

struct ModeComparison {
  std::vector<ModeRow> rows;     // the cases finished in both, in the descent campaign's order
  double geomean_ratio = 1;      // of grid / descent final latency
  double descent_wall_s = 0, grid_wall_s = 0;
};

// Throws Error where `descent` holds a grid case or `grid` a descent case (the files were given the wrong way round),
// or where no case finished in both.
ModeComparison compare_modes(const std::vector<CaseResult>& descent, const std::vector<CaseResult>& grid);

// One row per case, then the totals.
std::string format_mode_comparison(const ModeComparison& c);

}  // namespace tilewise::tune
