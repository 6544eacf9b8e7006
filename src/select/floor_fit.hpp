#pragma once
// Fitting the floor's two constants (select/floor.hpp) to sweep points, and judging a rule on points it was not fitted
// on. A judged point counts as the rule ran it: the family the rule picks, at that family's measured speedup, or
// cuBLASLt's default (the baseline itself, 1x) where it picks none.
#include <string>
#include <utility>
#include <vector>

#include "select/floor.hpp"

namespace tilewise::select {

struct FloorScore {
  int problems = 0;
  int taken = 0;    // problems the rule gave one of our families
  int faster = 0;   // ... where that family was faster than cublaslt-default beyond noise
  int slower = 0;   // ... where it was slower beyond noise (the floor's target is 0)
  int cliff = 0;    // problems taken that are not vendor-aligned (cuBLASLt's alignment cliff)
  double geomean = 1;          // over all problems
  double geomean_aligned = 1;  // over the vendor-aligned problems alone (the figure that is never a cliff's)
  double worst = 1;            // the least speedup of a taken problem
};

// How the rule would run each of `judged` (points of `rule` itself are not looked up: pass a rule without them). A
// family taken on a judged point whose outcome there is not current (Outcome::current) counts as slower, at no more
// than 1x: what its rule would run there was not timed.
FloorScore score_floor(const FloorRule& rule, const std::vector<FloorPoint>& judged);

// The problems the judged half shares with the fitted half, compared by what they are (core/problem.hpp's
// problem_identity), not by name or file: each as (fitted, judged), in the judged half's order. A rule judged on the
// problems it was fitted to says nothing of the others (a copy of the fitted receipt, passed as the judged half,
// once scored as "judged on 248 others").
std::vector<std::pair<Problem, Problem>> shared_problems(const std::vector<FloorPoint>& fitted,
                                                         const std::vector<FloorPoint>& judged);

struct FloorFit {
  FloorRule rule;             // the constants chosen, its points those fitted on
  FloorScore leave_one_out;   // on the fitted points, each judged by the rest
  std::vector<std::pair<FloorRule, FloorScore>> tried;  // every setting of the grid, points left out
};

// Tries neighbours 1, 2, 3, 4, 6, 8 and radius 0.5 .. 6 (a radius of 6 spans most of a class: a class where every
// point was faster is taken whole); keeps the setting with the fewest slower problems left out one at a
// time, then the highest geomean, then the larger neighbour count. `base` gives the GPU identity and receipts.
FloorFit fit_floor(const FloorRule& base, const std::vector<FloorPoint>& train);

// A markdown report: the fit's grid, the judged half's score, and the outcomes that are not current.
std::string floor_report(const FloorFit& fit, const FloorScore& judged, const std::vector<FloorPoint>& judged_points);

}  // namespace tilewise::select
