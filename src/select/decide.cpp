#include "select/decide.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::select {

namespace {

struct Timed {
  std::string family, config, arm;
  double us = 0;
};

// The receipt's database arms that produced a time, by problem signature.
std::map<std::string, std::vector<Timed>> database_arms(const receipt::Receipt& r) {
  std::map<std::string, std::vector<Timed>> out;
  for (const receipt::Result& res : r.results)
    for (const receipt::ArmResult& a : res.arms) {
      const nlohmann::json& c = a.config;
      if (!c.is_object() || c.value("source", "") != "database") continue;
      if (!a.correct || !a.us_median) continue;
      out[signature(res.problem)].push_back({c.value("family", ""), c.value("config", ""), a.arm, *a.us_median});
    }
  return out;
}

}  // namespace

Decided decide(Database db, const receipt::Receipt& r, const std::string& origin, const Preference& prefer) {
  if (prefer.margin < 0 || prefer.margin >= 1)
    throw Error(fmt::format("a preference margin is a fraction in [0, 1), not {}", prefer.margin));
  Decided out;
  const auto arms = database_arms(r);
  if (arms.empty())  // else it would decide nothing and the merge would read as decided
    throw Error(fmt::format("{}: no arm timed a database entry (its arms: {}; one that failed or was incorrect times "
                            "nothing): it decides nothing",
                            origin, fmt::join(receipt::arm_names(r), ", ")));
  for (auto& [key, record] : db.records) {
    if (record.families.size() < 2) continue;
    const auto it = arms.find(key);
    std::map<std::string, const Timed*> by_family;
    if (it != arms.end())
      for (const Timed& t : it->second) {
        const auto entry = record.families.find(t.family);
        if (entry == record.families.end())
          throw Error(fmt::format("{}: arm '{}' ran a {} entry for {}, which the database does not have", origin,
                                  t.arm, t.family, key));
        if (entry->second.config != t.config)
          throw Error(fmt::format("{}: arm '{}' ran {} for {}, the database holds {}: the receipt was made with "
                                  "another database",
                                  origin, t.arm, t.config, key, entry->second.config));
        if (!by_family.count(t.family) || t.us < by_family[t.family]->us) by_family[t.family] = &t;
      }
    // A receipt that timed only some of the record's families cannot say the others are slower: dropping them here
    // would let a receipt from before a family was tuned decide against it. The record waits for one that timed all.
    if (by_family.size() < record.families.size()) {
      out.undecided += it != arms.end();
      continue;
    }
    Decision d{key, "", {}};
    const Timed* best = nullptr;
    for (const auto& [family, t] : by_family) {
      d.timed.emplace_back(family, t->us);
      if (!best || t->us < best->us) best = t;
    }
    if (const auto preferred = by_family.find(prefer.family);
        preferred != by_family.end() && best->us >= preferred->second->us * (1 - prefer.margin))
      best = preferred->second;
    d.family = best->family;
    Entry kept = record.families.at(best->family);
    kept.us = best->us;
    kept.source = fmt::format("{}; decided in {} ({})", kept.source, origin, best->arm);
    record.families = {{best->family, kept}};
    out.decisions.push_back(std::move(d));
  }
  out.db = std::move(db);
  return out;
}

}  // namespace tilewise::select
