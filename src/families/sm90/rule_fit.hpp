#pragma once
// Fitting the first rule's constants (RuleParams) to a sweep: per measured problem, the time of every configuration
// the rule chooses among. A parameter set is judged by its choices: per problem, the time of the configuration it
// picks over the fastest one measured. The fit searches a grid around the measured defaults for the set whose
// root-mean-square error is least (then the one nearest the defaults).
#include <map>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "families/sm90/heuristic.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::sm90 {

struct SweepCase {
  Problem problem;
  std::map<std::string, double> us;  // canonical configuration -> median microseconds (correct candidates only)
};

struct FitRow {
  std::string problem;         // describe(problem)
  std::string fastest, chosen;  // canonical configurations
  double fastest_us = 0, chosen_us = 0;
  double error() const { return chosen_us / fastest_us - 1; }
};

// Each problem's error is its choice's time over the fastest time, less one.
struct Errors {
  double mean = 0, worst = 0, rms = 0;
};

struct Fit {
  RuleParams params;
  std::vector<FitRow> rows;
  Errors errors;
};

// The sm90:sweep results of a receipt, one case per problem (its correct candidates' times).
std::vector<SweepCase> sweep_cases(const receipt::Receipt& r);

// How `params` does on the sweep. Throws Error naming the problem where its choice was not measured (a sweep that
// does not cover the rule's candidates cannot judge it).
Fit evaluate(const std::vector<SweepCase>& cases, const RuleParams& params, const Limits& limits);
// The best parameter set on the grid (Error where no set's choices were all measured); `hold_swapped` keeps the
// swapped tiles' rate at the shipped one instead of fitting it.
Fit fit_rule(const std::vector<SweepCase>& cases, const Limits& limits, bool hold_swapped = false);

}  // namespace tilewise::sm90
