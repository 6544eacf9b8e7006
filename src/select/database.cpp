#include "select/database.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/cublaslt/config.hpp"
#include "families/gemv/config.hpp"
#include "families/sm90/config.hpp"
#include "select/merge.hpp"

namespace tilewise::select {

std::string signature(const Problem& p) {
  return fmt::format("{}x{}x{} {}->{} {} lda={} ldb={} ldc={}", p.M, p.N, p.K, to_string(p.dtype),
                     to_string(output_dtype(p.dtype)), to_string(p.layout), p.lda, p.ldb, p.ldc);
}

void add(Database& db, const Identity& id, const Problem& p, const std::string& family, std::string config, double us,
         std::string source) {
  Database one;
  one.identities = {id};
  Problem bare = p;
  bare.name.clear();
  one.records[signature(p)] = Record{bare, {{family, Entry{std::move(config), us, 0, std::move(source)}}}};
  db = merge({{"the database", std::move(db)}, {"the new entry", std::move(one)}});
}

const Entry* lookup(const Database& db, const Problem& p, std::string_view family) {
  const auto record = db.records.find(signature(p));
  if (record == db.records.end()) return nullptr;
  const auto entry = record->second.families.find(std::string(family));
  return entry == record->second.families.end() ? nullptr : &entry->second;
}

const Identity& identity_of(const Database& db, const Entry& e) { return db.identities.at(size_t(e.identity)); }

std::optional<std::string> invalid_config(std::string_view family, std::string_view config) {
  try {
    if (family == "sm90") sm90::parse_config(config);
    else if (family == "cublaslt") cublaslt::parse_config(config);
    else if (family == "gemv") gemv::parse_config(config);
    else return fmt::format("unknown family '{}' (known: sm90, cublaslt, gemv)", family);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace tilewise::select
