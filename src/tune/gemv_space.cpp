#include "tune/gemv_space.hpp"

#include "families/gemv/view.hpp"

#include <fmt/format.h>

#include <memory>

#include "core/error.hpp"
#include "families/gemv/heuristic.hpp"

namespace tilewise::tune {

namespace {

const Group kGroups[] = {
    {"engine", {"engine", "cols", "stages"}},
    {"split", {"threads", "ksplit", "interleave"}},
    {"depth", {"unroll", "prefetch"}},
    {"stream", {"hint", "persistent", "pdl"}},
};

// Both in the family's one canonical order.
int differing_fields(const Config& a, const Config& b) {
  int n = 0;
  for (size_t i = 0; i < a.fields.size(); ++i) n += a.fields[i] != b.fields[i];
  return n;
}

// Of the feasible configurations with the candidate's values of `opened`, the one that differs from it in the
// fewest other fields (the first found on a tie).
std::optional<Config> nearest(const std::vector<Config>& feasible, const Config& candidate,
                              const std::vector<std::string>& opened) {
  const Config kept = project(candidate, opened);
  const Config* best = nullptr;
  int best_distance = 0;
  for (const Config& c : feasible) {
    if (project(c, opened) != kept) continue;
    const int d = differing_fields(c, candidate);
    if (!best || d < best_distance) best = &c, best_distance = d;
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace

Config to_tune(const gemv::Config& c) {
  Config t = parse(gemv::to_string(c));
  std::erase_if(t.fields, [](const auto& kv) {
    return kv.first == "stages" || kv.first == "prefetch" || kv.first == "interleave";
  });
  t.fields.emplace_back("stages", std::to_string(c.stages));
  t.fields.emplace_back("prefetch", c.prefetch ? "1" : "0");
  t.fields.emplace_back("interleave", c.interleave ? "1" : "0");
  return t;
}

gemv::Config to_gemv(const Config& c) { return gemv::parse_config(to_string(c)); }

std::optional<std::string> gemv_unsupported(const Problem& problem) {
  if (!gemv::view_of(problem))
    return fmt::format("the gemv family takes 1..16 tokens as M, or as N in TN (nn.Linear's orientation), not "
                       "M = {}, N = {}",
                       problem.M, problem.N);
  return std::nullopt;
}

Space gemv_space(const Problem& problem) {
  if (const auto why = gemv_unsupported(problem)) throw Unsupported(fmt::format("{}: {}", describe(problem), *why));
  const Problem p = gemv::require_view(problem).problem;  // tokens as the kernel's M in either orientation
  const gemv::Format weights = gemv::native_format(p.dtype);
  auto feasible = std::make_shared<std::vector<Config>>();
  for (const gemv::Config& c : gemv::feasible_set(p, weights)) feasible->push_back(to_tune(c));
  // The default is a point of feasible_set's grid: with nothing feasible it throws Unsupported naming why (K not
  // whole 16-byte chunks, a stride off the loads' alignment).
  if (feasible->empty()) gemv::default_config(p, weights);
  Space s;
  for (const Group& g : kGroups) s.groups.push_back(with_alternatives(g, *feasible));
  s.infeasible = [p](const Config& c) -> std::optional<std::string> {
    std::string why = gemv::infeasible(to_gemv(c), p);
    if (why.empty()) return std::nullopt;
    return why;
  };
  s.fit = [feasible](const Config& c, const std::vector<std::string>& opened) {
    return nearest(*feasible, c, opened);
  };
  return s;
}

Tunable gemv_tunable(const Problem& p, int sm_count) {
  Space space = gemv_space(p);  // first: its refusal names the family's reach
  const Problem v = gemv::require_view(p).problem;
  return Tunable{std::move(space), to_tune(gemv::default_config(v, gemv::native_format(p.dtype), sm_count))};
}

}  // namespace tilewise::tune
