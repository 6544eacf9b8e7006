#include "select/database_file.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "select/json_file.hpp"

namespace tilewise::select {

using nlohmann::json;

json to_json(const Database& db) {
  json identities = json::array();
  for (const Identity& id : db.identities) identities.push_back(to_json(id));
  json entries = json::array();
  for (const auto& [key, r] : db.records) {  // a map: written in key order, so files diff cleanly
    json families = json::object();
    for (const auto& [family, e] : r.families) {
      families[family] = {{"config", e.config}, {"us", e.us}, {"identity", e.identity}};
      if (!e.source.empty()) families[family]["source"] = e.source;
    }
    const Problem& p = r.problem;
    entries.push_back({{"key", key}, {"M", p.M}, {"N", p.N}, {"K", p.K}, {"dtype", to_string(p.dtype)},
                       {"layout", to_string(p.layout)}, {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc},
                       {"families", families}});
  }
  return {{"schema", kDatabaseSchema}, {"identities", identities}, {"entries", entries}};
}

namespace {

Problem parse_problem(const At& at) {
  Problem p;
  p.M = at["M"].integer();
  p.N = at["N"].integer();
  p.K = at["K"].integer();
  try {
    p.dtype = parse_dtype(at["dtype"].string());
  } catch (const Error& e) {
    at["dtype"].fail(e.what());
  }
  try {
    p.layout = parse_layout(at["layout"].string());
  } catch (const Error& e) {
    at["layout"].fail(e.what());
  }
  p.lda = at["lda"].integer();
  p.ldb = at["ldb"].integer();
  p.ldc = at["ldc"].integer();
  try {
    validate(p);
  } catch (const Error& e) {
    at.fail(e.what());
  }
  return p;
}

// An entry's configuration must be its family's and feasible for the entry's problem on the GPU that measured it.
Entry parse_entry(const At& at, std::string_view family, const std::vector<Identity>& identities, const Problem& p) {
  Entry e;
  e.config = at["config"].string();
  e.us = at["us"].number();
  if (e.us <= 0) at["us"].fail(fmt::format("a time of {} us is not positive", e.us));
  const int64_t id = at["identity"].integer();
  if (id < 0 || size_t(id) >= identities.size())
    at["identity"].fail(fmt::format("identity {} is not in the table of {}", id, identities.size()));
  e.identity = int(id);
  if (const auto why = invalid_entry(family, e.config, p, identities[size_t(id)].sm_count)) at["config"].fail(*why);
  if (at.has("source")) e.source = at["source"].string();
  return e;
}

}  // namespace

Database parse_database(const json& j, const std::string& origin) {
  const At doc{j, origin, ""};
  const std::string schema = doc["schema"].string();
  if (schema != kDatabaseSchema)
    doc["schema"].fail(fmt::format("'{}' is not {} (not a tilewise database, or another version)", schema,
                                   kDatabaseSchema));
  Database db;
  const At ids = doc["identities"];
  for (size_t i = 0; i < ids.array().size(); ++i) db.identities.push_back(parse_identity(ids[i]));
  const At entries = doc["entries"];
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < entries.array().size(); ++i) {
    const At at = entries[i];
    Record r{parse_problem(at), {}};
    // The key is stored for people reading the file; the fields are what counts, and they must agree.
    const std::string key = at["key"].string();
    if (key != signature(r.problem))
      at["key"].fail(fmt::format("'{}' does not match the entry's fields ({})", key, signature(r.problem)));
    if (const auto [it, fresh] = seen.try_emplace(key, i); !fresh)
      at["key"].fail(fmt::format("'{}' repeats /entries/{}", key, it->second));
    const At families = at["families"];
    for (const auto& [family, value] : families.object().items())
      r.families[family] = parse_entry(families[family], family, db.identities, r.problem);
    db.records[key] = std::move(r);
  }
  return db;
}

void write_database(const Database& db, const std::string& path) { write_json_file_atomically(to_json(db), path); }

Database read_database(const std::string& path) { return parse_database(read_json_file(path), path); }

Loaded load_database(const std::string& path, const Identity& running, bool allow_foreign) {
  Loaded out{read_database(path), {}, {}};
  for (size_t i = 0; i < out.db.identities.size(); ++i) {
    const Compatibility c = compatibility(out.db.identities[i], running);
    for (const std::string& why : c.refuse)
      out.overridden.push_back(fmt::format("{}: identity {} was measured elsewhere: {}", path, i, why));
    for (const std::string& why : c.warn)
      out.warnings.push_back(fmt::format("{}: identity {} was measured under other software: {}", path, i, why));
  }
  if (!out.overridden.empty() && !allow_foreign)
    throw Error(fmt::format("{}; its times say nothing about this machine (retune here, or override explicitly to "
                            "use it anyway)", out.overridden.front()));
  return out;
}

}  // namespace tilewise::select
