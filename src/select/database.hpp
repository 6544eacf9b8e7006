#pragma once
// The tuned database: per problem signature and per family, the winning configuration and its measured time, with
// the identity of what measured it. The tuner writes it; selection looks problems up in it. It is a JSON file:
//
//   {"schema": "tilewise.database/1",
//    "identities": [{"gpu": "NVIDIA H200", "sm_count": 132, "cc": "9.0", ...}],
//    "entries": [{"key": "4096x8192x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096", "M": 4096, ..., "ldc": 4096,
//                 "families": {"sm90": {"config": "block_m=128,...", "us": 512.3, "identity": 0, "source": "..."}}}]}
//
// Identities are a table that entries point into, so databases measured on different machines can be merged without
// losing which machine measured which entry.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"
#include "select/identity.hpp"

namespace tilewise::select {

inline constexpr std::string_view kDatabaseSchema = "tilewise.database/1";

// The key of a tuned result: everything about a problem that can change which kernel is fastest (sizes, types,
// layout, strides) and nothing else (not its name). The one helper for this key, used to insert and to look up.
// "4096x8192x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096"
std::string signature(const Problem& p);

struct Entry {
  std::string config;  // the family's canonical configuration string
  double us = 0;       // its measured time, the median over the repeats
  int identity = 0;    // index into Database::identities
  std::string source;  // what produced it (a campaign file, a receipt), for tracing; may be empty
  bool operator==(const Entry&) const = default;
};

struct Record {
  Problem problem;                        // name empty: the signature's fields
  std::map<std::string, Entry> families;  // "sm90", "cublaslt", "gemv"
  bool operator==(const Record&) const = default;
};

struct Database {
  std::vector<Identity> identities;
  std::map<std::string, Record> records;  // by signature
  bool operator==(const Database&) const = default;
};

// Adds `family`'s result for `p` measured under `id`. An existing entry for the same key and family is a conflict,
// resolved by the merge rule (merge.hpp): the faster is kept when both were measured under the same identity, else
// Error naming the key.
void add(Database& db, const Identity& id, const Problem& p, const std::string& family, std::string config, double us,
         std::string source = "");

const Entry* lookup(const Database& db, const Problem& p, std::string_view family);

// Token buckets (docs/design.md): a problem's token count is the smaller of M and N (N on a tie), the weights' side
// the other. An entry tuned at one token count may serve another problem that differs from it only there, within
// one power-of-two bucket (1, 2, 3-4, 5-8, ..., 8193-16384), and in leading dimensions only where each keeps its
// alignment (a multiple of 8 elements or not), which is all a kernel's speed depends on in them. Exact keys come
// first (choice.hpp); what a bucket serves is rebuilt for the problem, so an infeasible one is never served.
int token_bucket(int64_t tokens);  // 0 for 1, 1 for 2, 2 for 3-4, 3 for 5-8, ...
bool serves(const Problem& tuned, const Problem& p);
// The records that may serve p (not one with p's own signature), the nearest token count first.
std::vector<const Record*> bucket_records(const Database& db, const Problem& p);
const Identity& identity_of(const Database& db, const Entry& e);

// Why `config` is no `family` configuration that may run p: an unknown family, text that does not parse (its field
// and value named), or one the family's feasibility refuses for p (as far as the CPU can tell; sm_count is the
// measuring GPU's). Nothing when it may.
std::optional<std::string> invalid_entry(std::string_view family, std::string_view config, const Problem& p,
                                         int sm_count);

}  // namespace tilewise::select
