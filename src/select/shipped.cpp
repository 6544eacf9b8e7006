#include "select/shipped.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "select/database_file.hpp"

namespace tilewise::select {

extern const char* const shipped_database_json;  // generated from data/database-h200.json

Usable usable_entries(const Database& db, const Identity& running, const std::string& origin) {
  Usable out;
  std::vector<bool> usable;
  for (size_t i = 0; i < db.identities.size(); ++i) {
    const Compatibility c = compatibility(db.identities[i], running);
    usable.push_back(c.refuse.empty());
    if (!c.refuse.empty())
      out.refused.push_back(fmt::format("{}: identity {} unused: {}", origin, i, fmt::join(c.refuse, "; ")));
    for (const std::string& why : c.warn)
      out.warnings.push_back(fmt::format("{}: identity {} was measured under other software: {}", origin, i, why));
  }
  out.db.identities = db.identities;
  for (const auto& [key, r] : db.records) {
    Record kept{r.problem, {}};
    for (const auto& [family, e] : r.families)
      if (usable[size_t(e.identity)]) kept.families[family] = e;
    if (!kept.families.empty()) out.db.records[key] = std::move(kept);
  }
  return out;
}

const Database& shipped_database() {
  static const Database db = parse_database(nlohmann::json::parse(shipped_database_json), "data/database-h200.json");
  return db;
}

Usable shipped_database_for(const Identity& running) {
  return usable_entries(shipped_database(), running, "data/database-h200.json");
}

}  // namespace tilewise::select
