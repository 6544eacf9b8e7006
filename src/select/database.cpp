#include "select/database.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "families/registry.hpp"
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

int token_bucket(int64_t tokens) {
  int b = 0;
  while ((int64_t(1) << b) < tokens) ++b;
  return b;
}

namespace {

struct Sides {
  int64_t tokens, weights;
  bool tokens_are_n;
};

Sides sides_of(const Problem& p) { return p.N <= p.M ? Sides{p.N, p.M, true} : Sides{p.M, p.N, false}; }

bool same_alignment(int64_t a, int64_t b) { return (a % 8 == 0) == (b % 8 == 0); }

}  // namespace

bool serves(const Problem& tuned, const Problem& p) {
  if (tuned.dtype != p.dtype || tuned.layout != p.layout || tuned.K != p.K) return false;
  const Sides t = sides_of(tuned), q = sides_of(p);
  return t.tokens_are_n == q.tokens_are_n && t.weights == q.weights &&
         token_bucket(t.tokens) == token_bucket(q.tokens) && same_alignment(tuned.lda, p.lda) &&
         same_alignment(tuned.ldb, p.ldb) && same_alignment(tuned.ldc, p.ldc);
}

std::vector<const Record*> bucket_records(const Database& db, const Problem& p) {
  const std::string own = signature(p);
  std::vector<std::pair<double, const Record*>> near;
  for (const auto& [key, r] : db.records)
    if (key != own && serves(r.problem, p))
      near.push_back({std::abs(std::log2(double(sides_of(r.problem).tokens) / double(sides_of(p).tokens))), &r});
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Record*> out;
  for (const auto& [d, r] : near) out.push_back(r);
  return out;
}

const Identity& identity_of(const Database& db, const Entry& e) { return db.identities.at(size_t(e.identity)); }

std::optional<std::string> invalid_entry(std::string_view family, std::string_view config, const Problem& p,
                                         int sm_count) {
  try {
    const families::Family& f = families::family(family);
    f.canonical(config);
    if (const std::optional<std::string> why = f.infeasible(config, p, sm_count))
      return fmt::format("{} '{}' cannot run {}: {}", family, config, signature(p), *why);
  } catch (const Error& e) {  // an unknown family, or the field and the value that do not parse
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace tilewise::select
