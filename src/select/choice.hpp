#pragma once
// Selection's one rule (DESIGN.md): a problem goes to the tuned database's entry when the database has its signature,
// else to a heuristic that needs no GPU and no measurement. Pure: it names a family and a configuration; building and
// running them is select/api.hpp's.
#include <optional>
#include <string>

#include "core/problem.hpp"
#include "select/database.hpp"

namespace tilewise::select {

struct Choice {
  std::string family;  // "sm90", "gemv" or "cublaslt"
  // The family's canonical configuration. Empty for cuBLASLt from the heuristic: its own heuristic's first candidate,
  // which only cuBLASLt on the GPU can name.
  std::string config;
  std::string source;  // "database" or "heuristic"
  double us = 0;       // the database's time; 0 from the heuristic
  bool operator==(const Choice&) const = default;
};

// The fastest of the families the database records for p, or nothing when it does not have p. Their times compare
// roughly: one machine measured them (a database is loaded only under the running identity, or by an override its
// user asked for), on the same buffers and minutes apart (`tilewise tune` runs a problem's families back to back), but
// not interleaved, so a near tie may go either way; `bench` with the arm `selected` judges the result.
std::optional<Choice> from_database(const Database& db, const Problem& p);

// Whether the decode GEMV's default is taken over a tensor-core tile without measuring: M <= 8 rows in TN with bf16
// or fp16 (the GEMV reads B as it is) and a feasible default. Up to 8 rows each weight is used at most 8 times, so
// the shape is a stream of B from HBM, which the GEMV is written for (16-byte loads, enough in flight to cover
// latency); sm90's narrowest tile still stages every operand through shared memory. A rule of thumb, not yet a fit
// to a sweep: a database entry, which is measured, overrides it per shape. NN (x M-major, read across lanes) and
// fp8 (cuBLASLt's fp8 kernel ran faster at M = 1, results/protocol-decode-gemv-7.json) take the GEMV only from a
// database.
bool gemv_by_rule(const Problem& p, int sm_count = 132);

// The heuristic: gemv by the rule above, else sm90's first shape rule, else (a stride TMA cannot load) cuBLASLt's
// own heuristic.
Choice heuristic_choice(const Problem& p, int sm_count = 132);

// The database's choice when it has p, else the heuristic's. `db` may be null (no database).
Choice choose(const Database* db, const Problem& p, int sm_count = 132);

}  // namespace tilewise::select
