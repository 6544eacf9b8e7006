#pragma once
// The database as a file: writing it, reading it back with errors that say where a corrupt file is wrong, and
// loading it for use on this machine, which refuses a database measured under another identity.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "select/database.hpp"

namespace tilewise::select {

nlohmann::json to_json(const Database& db);
// Throws Error "origin: /json/pointer: what is wrong" for a wrong schema, a missing or mistyped field, a key that
// does not match its fields, a repeated key, an identity index out of range, a time that is not positive, or a
// configuration its family cannot parse.
Database parse_database(const nlohmann::json& j, const std::string& origin);

void write_database(const Database& db, const std::string& path);  // atomically
Database read_database(const std::string& path);                   // "path:line:column" for JSON that does not parse

struct Loaded {
  Database db;
  // The identity mismatches that were let through by the override, one line each; the caller records them in its
  // receipt so a figure measured with a foreign database says so.
  std::vector<std::string> overridden;
  // Differences the identity policy lets through (a driver, runtime or cuBLASLt minor version), one line each, for the
  // caller to record beside its figures.
  std::vector<std::string> warnings;
};

// Reads `path` for use on the machine `running`. A database with an entry measured on another GPU or under another
// cuBLASLt major version (select::compatibility) is refused with the reason, unless `allow_foreign`, which uses it
// anyway and returns the reasons in `overridden`; lesser differences are returned in `warnings`.
Loaded load_database(const std::string& path, const Identity& running, bool allow_foreign = false);

}  // namespace tilewise::select
