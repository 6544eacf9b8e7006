#include "select/choice.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "families/registry.hpp"

namespace tilewise::select {

std::optional<Choice> from_database(const Database& db, const Problem& p) {
  const auto record = db.records.find(signature(p));
  if (record == db.records.end() || record->second.families.empty()) return std::nullopt;
  const std::pair<const std::string, Entry>* best = nullptr;
  for (const auto& kv : record->second.families)
    if (!best || kv.second.us < best->second.us) best = &kv;
  return Choice{best->first, best->second.config, "database", best->second.us};
}

std::optional<std::string> infeasible(const Choice& c, const Problem& p, int sm_count) {
  try {
    return families::family(c.family).infeasible(c.config, p, sm_count);
  } catch (const Error& e) {  // an unknown family, a configuration that does not parse
    return std::string(e.what());
  }
}

std::vector<Choice> bucket_choices(const Database& db, const Problem& p, int sm_count) {
  std::vector<Choice> out;
  for (const Record* r : bucket_records(db, p)) {
    std::vector<std::pair<std::string, Entry>> by_time(r->families.begin(), r->families.end());
    std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.second.us < b.second.us; });
    for (const auto& [family, e] : by_time) {
      Choice c{family, e.config, "bucket", e.us};
      try {
        c.config = families::family(family).for_problem(e.config, p);
      } catch (const Error&) {  // infeasible() below names it
      }
      if (!infeasible(c, p, sm_count)) out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<Choice> rule_choices(const Problem& p, int sm_count) {
  std::vector<Choice> out;
  for (const families::Family* f : families::all_families())
    if (const std::optional<std::string> config = f->rule(p, sm_count))
      out.push_back({std::string(f->name()), *config, "floor", 0});
  return out;
}

namespace {

const FloorRule& floor_of(const Rules& rules) { return rules.floor ? *rules.floor : shipped_floor(); }

}  // namespace

Choice vendor_choice() { return {std::string(families::vendor_family().name()), "", "heuristic", 0}; }

Choice heuristic_choice(const Problem& p, const Rules& rules) {
  const std::vector<Choice> candidates = rule_choices(p, rules.sm_count);
  std::vector<std::string> families;
  for (const Choice& c : candidates) families.push_back(c.family);
  const FloorRule& floor = floor_of(rules);
  if (const std::optional<std::string> pick = floor_pick(floor, p, families, rules.running))
    for (const Choice& c : candidates)
      if (c.family == *pick) return c;
  return vendor_choice();
}

std::vector<std::string> floor_reasons(const Problem& p, const Rules& rules) {
  const FloorRule& floor = floor_of(rules);
  if (rules.running && !holds_on(floor, *rules.running))
    return {fmt::format("the floor was measured on {} ({} SMs, cc {}): it takes no family here", floor.gpu,
                        floor.sm_count, floor.cc)};
  std::vector<std::string> out;
  for (const Choice& c : rule_choices(p, rules.sm_count)) {
    const FloorVerdict v = judge(floor, p, c.family);
    out.push_back(v.taken ? fmt::format("{}: taken, its {} nearest points all faster (the least {:.3f}x)", c.family,
                                        v.neighbours.size(), v.score)
                          : fmt::format("{}: {}", c.family, v.why));
  }
  if (out.empty()) out.push_back("no family of ours has a rule for this problem");
  return out;
}

SourcedChoice choose_sourced(const std::vector<const Database*>& dbs, const Problem& p, const Rules& rules) {
  for (size_t i = 0; i < dbs.size(); ++i)
    if (dbs[i])
      if (auto hit = from_database(*dbs[i], p)) return {*hit, i};
  for (size_t i = 0; i < dbs.size(); ++i)
    if (dbs[i] && rules.serve_buckets)
      if (std::vector<Choice> near = bucket_choices(*dbs[i], p, rules.sm_count); !near.empty())
        return {near.front(), i};
  return {heuristic_choice(p, rules), std::nullopt};
}

Choice choose(const std::vector<const Database*>& dbs, const Problem& p, const Rules& rules) {
  return choose_sourced(dbs, p, rules).choice;
}

}  // namespace tilewise::select
