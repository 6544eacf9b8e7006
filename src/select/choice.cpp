#include "select/choice.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/feasibility.hpp"
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

std::optional<std::string> infeasible(const Choice& c, const Problem& p, int sm_count) {
  try {
    if (c.family == "sm90") {
      sm90::Limits limits;
      limits.sm_count = sm_count;
      return sm90::infeasible(sm90::parse_config(c.config), p, limits);
    }
    if (c.family == "gemv") {
      const std::optional<gemv::View> v = gemv::view_of(p);
      if (!v) return "the GEMV takes at most 16 tokens";
      const gemv::Config g = gemv::parse_config(c.config);
      if (!gemv::is_native(g.weights, p.dtype)) return "packed weights";
      if (std::string why = gemv::infeasible(g, v->problem); !why.empty()) return why;
      return std::nullopt;
    }
    if (c.family == "cublaslt") return std::nullopt;  // cuBLASLt's own check, when the plan is built
    return "unknown family '" + c.family + "'";
  } catch (const Error& e) {
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
      if (family == "gemv") try {  // the GEMV's configuration holds its token count: the rest serves as tuned
          gemv::Config g = gemv::parse_config(e.config);
          if (const std::optional<gemv::View> v = gemv::view_of(p)) g.m = int(v->problem.M);
          c.config = gemv::to_string(g);
        } catch (const Error&) {
        }
      if (!infeasible(c, p, sm_count)) out.push_back(std::move(c));
    }
  }
  return out;
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

Choice choose(const std::vector<const Database*>& dbs, const Problem& p, const Rules& rules) {
  for (const Database* db : dbs)
    if (db)
      if (auto hit = from_database(*db, p)) return *hit;
  for (const Database* db : dbs)
    if (db && rules.serve_buckets)
      if (std::vector<Choice> near = bucket_choices(*db, p, rules.sm_count); !near.empty()) return near.front();
  return heuristic_choice(p, rules);
}

}  // namespace tilewise::select
