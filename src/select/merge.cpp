#include "select/merge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tilewise::select {

namespace {

int index_of(std::vector<Identity>& table, const Identity& id) {
  const auto it = std::find(table.begin(), table.end(), id);
  if (it != table.end()) return int(it - table.begin());
  table.push_back(id);
  return int(table.size()) - 1;
}

// Whether `a` is the entry to keep over `b` when both were timed on the same machine: the faster; on a tie the
// smaller configuration string, so the result does not depend on the order the databases were given in.
bool preferred(const Entry& a, const Entry& b) { return a.us != b.us ? a.us < b.us : a.config < b.config; }

}  // namespace

Database merge(const std::vector<Named>& databases) {
  Database out;
  std::map<std::pair<std::string, std::string>, std::string> origin_of;  // (key, family) -> where the kept entry came from
  for (const Named& in : databases) {
    for (const auto& [key, record] : in.db.records) {
      Record& into = out.records.try_emplace(key, Record{record.problem, {}}).first->second;
      for (const auto& [family, entry] : record.families) {
        Entry e = entry;
        e.identity = index_of(out.identities, identity_of(in.db, entry));
        const auto [it, fresh] = into.families.try_emplace(family, e);
        std::string& origin = origin_of[{key, family}];
        if (fresh) {
          origin = in.origin;
          continue;
        }
        Entry& kept = it->second;
        if (kept.config == e.config && kept.us == e.us && kept.identity == e.identity) continue;  // the same result
        if (kept.identity != e.identity)
          throw Error(fmt::format(
              "merge conflict at '{}' ({}): {} has {} at {} us and {} has {} at {} us, measured on different machines "
              "({}), so the times do not compare; keep one of them",
              key, family, origin, kept.config, kept.us, in.origin, e.config, e.us,
              *mismatch(out.identities[size_t(kept.identity)], out.identities[size_t(e.identity)], "first", "second")));
        if (preferred(e, kept)) {
          kept = e;
          origin = in.origin;
        }
      }
    }
  }
  return out;
}

Database merge(const std::vector<Named>& databases, const std::vector<Named>& overlays) {
  Database out = merge(databases);
  const Database over = merge(overlays);
  for (const auto& [key, record] : over.records) {
    Record& into = out.records.try_emplace(key, Record{record.problem, {}}).first->second;
    for (const auto& [family, entry] : record.families) {
      Entry e = entry;
      e.identity = index_of(out.identities, identity_of(over, entry));
      into.families.insert_or_assign(family, e);
    }
  }
  // An identity whose every entry an overlay replaced would still be checked when the database is loaded, and refuse
  // it on the machine the overlay was measured on: keep only the identities some entry points to.
  std::vector<int> renumbered(out.identities.size(), -1);
  std::vector<Identity> used;
  for (auto& [key, record] : out.records)
    for (auto& [family, entry] : record.families) {
      int& index = renumbered[size_t(entry.identity)];
      if (index < 0) index = index_of(used, out.identities[size_t(entry.identity)]);
      entry.identity = index;
    }
  out.identities = std::move(used);
  return out;
}

}  // namespace tilewise::select
