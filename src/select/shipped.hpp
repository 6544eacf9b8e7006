#pragma once
// The database that ships with the library (data/database-h200.json, embedded at build time by
// cmake/shipped_data.cmake): tuned on an H200, loaded by default wherever the identity policy
// (select::compatibility) lets the running machine use it, and silently unused elsewhere: on another GPU the floor
// and cuBLASLt serve, as they would with no database at all.
#include <string>
#include <vector>

#include "select/database.hpp"

namespace tilewise::select {

struct Usable {
  Database db;                        // the entries whose identity the policy lets through
  std::vector<std::string> warnings;  // the differences let through, one line each
  std::vector<std::string> refused;   // why entries were left out, one line per identity
};

// The entries of `db` measured under identities `running` may use (policy: select::compatibility).
Usable usable_entries(const Database& db, const Identity& running, const std::string& origin);

const Database& shipped_database();  // all of it, as embedded
Usable shipped_database_for(const Identity& running);

}  // namespace tilewise::select
