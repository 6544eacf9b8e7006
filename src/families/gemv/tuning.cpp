#include "families/gemv/tuning.hpp"

#include <fmt/format.h>

#include <memory>

#include "core/error.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/view.hpp"

namespace tilewise::gemv {

using families::Fields;
using families::Group;

namespace {

const Group kGroups[] = {
    {"engine", {"engine", "cols", "stages"}},
    {"split", {"threads", "ksplit", "interleave"}},
    {"depth", {"unroll", "prefetch"}},
    {"stream", {"hint", "persistent", "pdl"}},
};

// Both in the family's one canonical order.
int differing_fields(const Fields& a, const Fields& b) {
  int n = 0;
  for (size_t i = 0; i < a.fields.size(); ++i) n += a.fields[i] != b.fields[i];
  return n;
}

// Of the feasible configurations with the candidate's values of `opened`, the one that differs from it in the
// fewest other fields (the first found on a tie).
std::optional<Fields> nearest(const std::vector<Fields>& feasible, const Fields& candidate,
                              const std::vector<std::string>& opened) {
  const Fields kept = project(candidate, opened);
  const Fields* best = nullptr;
  int best_distance = 0;
  for (const Fields& c : feasible) {
    if (project(c, opened) != kept) continue;
    const int d = differing_fields(c, candidate);
    if (!best || d < best_distance) best = &c, best_distance = d;
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace

Fields tuner_fields(const Config& c) {
  Fields t = families::parse_fields(to_string(c));
  std::erase_if(t.fields, [](const auto& kv) {
    return kv.first == "stages" || kv.first == "prefetch" || kv.first == "interleave";
  });
  t.fields.emplace_back("stages", std::to_string(c.stages));
  t.fields.emplace_back("prefetch", c.prefetch ? "1" : "0");
  t.fields.emplace_back("interleave", c.interleave ? "1" : "0");
  return t;
}

Config from_fields(const Fields& f) { return parse_config(to_string(f)); }

std::optional<std::string> unsupported(const Problem& problem) {
  if (!view_of(problem))
    return fmt::format("the gemv family takes 1..16 tokens as M, or as N in TN (nn.Linear's orientation), not "
                       "M = {}, N = {}",
                       problem.M, problem.N);
  return std::nullopt;
}

families::Space space(const Problem& problem) {
  if (const auto why = unsupported(problem)) throw Unsupported(fmt::format("{}: {}", describe(problem), *why));
  const Problem p = require_view(problem).problem;  // tokens as the kernel's M in either orientation
  const Format weights = native_format(p.dtype);
  auto feasible = std::make_shared<std::vector<Fields>>();
  for (const Config& c : feasible_set(p, weights)) feasible->push_back(tuner_fields(c));
  // The default is a point of feasible_set's grid: with nothing feasible it throws Unsupported naming why (K not
  // whole 16-byte chunks, a stride off the loads' alignment).
  if (feasible->empty()) default_config(p, weights);
  families::Space s;
  for (const Group& g : kGroups) s.groups.push_back(with_alternatives(g, *feasible));
  s.infeasible = [p](const Fields& c) -> std::optional<std::string> {
    std::string why = infeasible(from_fields(c), p);
    if (why.empty()) return std::nullopt;
    return why;
  };
  s.fit = [feasible](const Fields& c, const std::vector<std::string>& opened) {
    return nearest(*feasible, c, opened);
  };
  return s;
}

families::Tunable tunable(const Problem& p, int sm_count, const std::optional<Config>& start) {
  families::Space s = space(p);  // first: its refusal names the family's reach
  const Problem v = require_view(p).problem;
  return families::Tunable{std::move(s), tuner_fields(start ? *start : default_config(v, native_format(p.dtype), sm_count))};
}

}  // namespace tilewise::gemv
