#include "select/choice.hpp"

#include "core/error.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::select {

std::optional<Choice> from_database(const Database& db, const Problem& p) {
  const auto record = db.records.find(signature(p));
  if (record == db.records.end() || record->second.families.empty()) return std::nullopt;
  const std::pair<const std::string, Entry>* best = nullptr;
  for (const auto& kv : record->second.families)
    if (!best || kv.second.us < best->second.us) best = &kv;
  return Choice{best->first, best->second.config, "database", best->second.us};
}

std::vector<Choice> rule_choices(const Problem& p, int sm_count) {
  std::vector<Choice> out;
  if (const std::optional<gemv::View> v = gemv::view_of(p)) try {
      const gemv::Config c = gemv::default_config(v->problem, gemv::native_format(p.dtype), sm_count);
      out.push_back({"gemv", gemv::to_string(c), "floor", 0});
    } catch (const Unsupported&) {
    }
  try {
    sm90::Limits limits;
    limits.sm_count = sm_count;
    out.push_back({"sm90", sm90::to_string(sm90::first_rule(p, limits)), "floor", 0});
  } catch (const Unsupported&) {
  }
  return out;
}

Choice heuristic_choice(const Problem& p, const Rules& rules) {
  const std::vector<Choice> candidates = rule_choices(p, rules.sm_count);
  std::vector<std::string> families;
  for (const Choice& c : candidates) families.push_back(c.family);
  const FloorRule& floor = rules.floor ? *rules.floor : shipped_floor();
  if (const std::optional<std::string> pick = floor_pick(floor, p, families, rules.running))
    for (const Choice& c : candidates)
      if (c.family == *pick) return c;
  return {"cublaslt", "", "heuristic", 0};
}

Choice choose(const Database* db, const Problem& p, const Rules& rules) {
  if (db)
    if (auto hit = from_database(*db, p)) return *hit;
  return heuristic_choice(p, rules);
}

}  // namespace tilewise::select
