#include "select/floor_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace tilewise::select {

namespace {

struct Tally {
  FloorScore s;
  double log_all = 0, log_aligned = 0;
  int aligned = 0;

  void add(const FloorPoint& pt, const std::optional<std::string>& pick) {
    ++s.problems;
    double speedup = 1;
    if (pick) {
      const Outcome& o = pt.families.at(*pick);
      // What the rule would run on a point timed with another configuration is unknown: scored as a loss, so a
      // setting that takes such points never looks better for it.
      const bool known = o.current;
      speedup = known ? o.speedup : std::min(o.speedup, 1.0);
      ++s.taken;
      s.faster += known && o.claim == "faster";
      s.slower += !known || o.claim == "slower";
      s.cliff += !vendor_aligned(pt.problem);
      s.worst = std::min(s.worst, speedup);
    }
    log_all += std::log(speedup);
    if (vendor_aligned(pt.problem)) log_aligned += std::log(speedup), ++aligned;
  }
  FloorScore done() {
    s.geomean = s.problems ? std::exp(log_all / s.problems) : 1;
    s.geomean_aligned = aligned ? std::exp(log_aligned / aligned) : 1;
    return s;
  }
};

std::vector<std::string> measured_families(const FloorPoint& pt) {
  std::vector<std::string> out;
  for (const auto& [f, _] : pt.families) out.push_back(f);
  return out;
}

// Better: fewer slower, then a higher geomean, then more neighbours (a stricter rule on a tie).
bool better(const FloorScore& a, int na, const FloorScore& b, int nb) {
  return std::make_tuple(-a.slower, a.geomean, na) > std::make_tuple(-b.slower, b.geomean, nb);
}

}  // namespace

std::vector<std::pair<Problem, Problem>> shared_problems(const std::vector<FloorPoint>& fitted,
                                                         const std::vector<FloorPoint>& judged) {
  std::map<ProblemIdentity, const Problem*> seen;
  for (const FloorPoint& pt : fitted) seen.emplace(problem_identity(pt.problem), &pt.problem);
  std::vector<std::pair<Problem, Problem>> out;
  for (const FloorPoint& pt : judged)
    if (const auto it = seen.find(problem_identity(pt.problem)); it != seen.end()) out.emplace_back(*it->second, pt.problem);
  return out;
}

FloorScore score_floor(const FloorRule& rule, const std::vector<FloorPoint>& judged) {
  Tally t;
  for (const FloorPoint& pt : judged) t.add(pt, floor_pick(rule, pt.problem, measured_families(pt)));
  return t.done();
}

FloorFit fit_floor(const FloorRule& base, const std::vector<FloorPoint>& train) {
  FloorFit fit;
  bool have = false;
  for (int k : {1, 2, 3, 4, 6, 8})
    for (double radius : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}) {
      FloorRule rule = base;
      rule.neighbours = k, rule.radius = radius;
      Tally t;
      for (size_t i = 0; i < train.size(); ++i) {
        rule.points = train;
        rule.points.erase(rule.points.begin() + std::ptrdiff_t(i));
        t.add(train[i], floor_pick(rule, train[i].problem, measured_families(train[i])));
      }
      rule.points.clear();
      const FloorScore s = t.done();
      fit.tried.emplace_back(rule, s);
      if (!have || better(s, k, fit.leave_one_out, fit.rule.neighbours)) {
        fit.rule = rule, fit.leave_one_out = s, have = true;
      }
    }
  fit.rule.points = train;
  return fit;
}

std::string floor_report(const FloorFit& fit, const FloorScore& judged, const std::vector<FloorPoint>& judged_points) {
  std::string out = fmt::format(
      "# The floor's fit\n\nGPU: {} ({} SMs, cc {}). Fitted on {} sweep problems (leave-one-out), judged on {} others.\n"
      "Speedups are against cublaslt-default; a problem the rule leaves to cuBLASLt counts 1x. \"cliff\" counts taken "
      "problems with a leading dimension that is not a multiple of 8 elements (cuBLASLt's alignment cliff).\n\n",
      fit.rule.gpu, fit.rule.sm_count, fit.rule.cc, fit.rule.points.size(), judged_points.size());
  std::string stale;
  for (const std::vector<FloorPoint>* points : {&fit.rule.points, &judged_points})
    for (const FloorPoint& pt : *points)
      for (const auto& [family, o] : pt.families)
        if (!o.current) stale += fmt::format("- {} on {}: timed with {}\n", family, pt.problem.name, o.config);
  if (!stale.empty())
    out += "## Timed with a configuration the family's rule no longer chooses\n\nThey count as not faster wherever "
           "they are a neighbour, and a setting that takes one is scored as slower there.\n\n" + stale + "\n";
  const auto row = [](const std::string& what, const FloorScore& s) {
    return fmt::format("| {} | {} | {} | {} | {} | {} | {:.4f} | {:.4f} | {:.3f} |\n", what, s.problems, s.taken,
                       s.faster, s.slower, s.cliff, s.geomean, s.geomean_aligned, s.worst);
  };
  const std::string head =
      "| setting | problems | taken | faster | slower | cliff | geomean | geomean aligned | worst taken |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  out += fmt::format("## Chosen: {} neighbours within {:.1f} (log2)\n\n", fit.rule.neighbours, fit.rule.radius) + head;
  out += row("fit (leave-one-out)", fit.leave_one_out);
  out += row("judged half", judged);
  out += "\n## Every setting tried (leave-one-out on the fitted half)\n\n" + head;
  for (const auto& [rule, s] : fit.tried)
    out += row(fmt::format("{} within {:.1f}", rule.neighbours, rule.radius), s);
  return out;
}

}  // namespace tilewise::select
