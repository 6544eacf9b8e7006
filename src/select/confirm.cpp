#include "select/confirm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::select {

namespace {

// The result's `arm` (or it with options) where it ran a database entry, timed beside a timed `baseline`; else null.
const receipt::ArmResult* judging_arm(const receipt::Result& res, const std::string& arm, const std::string& baseline) {
  const receipt::ArmResult* a = receipt::timed_arm(res, arm, true);
  if (!a || !receipt::timed_arm(res, baseline) || !a->config.is_object()) return nullptr;
  return a->config.value("source", "") == "database" ? a : nullptr;
}

}  // namespace

Confirmed confirm(Database db, const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                  Keep keep, const std::string& arm, const std::string& baseline) {
  Confirmed out;
  // A receipt where the arm ran no database entry beside the baseline judges nothing; taking it would read as a
  // judgement that kept every entry.
  for (const auto& [origin, r] : receipts)
    if (std::none_of(r.results.begin(), r.results.end(),
                     [&](const receipt::Result& res) { return judging_arm(res, arm, baseline); }))
      throw Error(fmt::format("{}: no {} arm ran a database entry beside {} (its arms: {}): it judges nothing", origin,
                              arm, baseline, fmt::join(receipt::arm_names(r), ", ")));
  std::set<std::pair<std::string, std::string>> gone;  // a problem in two suites (sq2048 and sq2048_lin) is judged twice
  for (const auto& [origin, r] : receipts)
  for (const receipt::Result& res : r.results) {
    const receipt::ArmResult* a = judging_arm(res, arm, baseline);
    if (!a) continue;
    const std::string key = signature(res.problem), family = a->config.value("family", "");
    const std::string config = a->config.value("config", "");
    if (gone.count({key, family})) continue;
    const auto record = db.records.find(key);
    const auto entry = record == db.records.end() ? nullptr : lookup(db, res.problem, family);
    if (!entry || entry->config != config)
      throw Error(fmt::format("{}: arm '{}' ran {} {} for {}, which the database does not hold: the receipt was made "
                              "with another database",
                              origin, a->arm, family, config, key));
    const receipt::Comparison c = receipt::compare(*a, *receipt::timed_arm(res, baseline));
    out.judged.push_back({key, family, config, c.speedup, c.claim});
    if (keep == Keep::faster ? c.claim == "faster" : c.claim != "slower") continue;
    gone.insert({key, family});
    record->second.families.erase(family);
    if (record->second.families.empty()) db.records.erase(record);
    ++out.dropped;
  }
  out.db = std::move(db);
  return out;
}

}  // namespace tilewise::select
