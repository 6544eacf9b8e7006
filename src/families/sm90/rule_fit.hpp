#pragma once
// Fitting the first rule's constants (RuleParams) to a sweep: per measured problem, the time of every configuration
// the rule chooses among. A parameter set is judged by its choices: per problem, the time of the configuration it
// picks over the fastest one measured. The fit searches a grid around the measured defaults for the set whose
// mean error is least (then the least worst error, then the defaults' own values).
#include <map>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "families/sm90/heuristic.hpp"

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

struct Fit {
  RuleParams params;
  std::vector<FitRow> rows;
  double mean_error = 0, worst_error = 0;
};

// How `params` does on the sweep. Throws Error naming the problem where its choice was not measured (a sweep that
// does not cover the rule's candidates cannot judge it).
Fit evaluate(const std::vector<SweepCase>& cases, const RuleParams& params, const Limits& limits);
// The best parameter set on the grid (Error where no set's choices were all measured).
Fit fit_rule(const std::vector<SweepCase>& cases, const Limits& limits);

}  // namespace tilewise::sm90
