#pragma once
// Selection's one rule (docs/design.md): a problem goes to a tuned database's entry when a database has its
// signature; else to an entry of its token bucket (database.hpp) that is feasible for it; else to one of our families
// only where the floor (select/floor.hpp) says committed measurement found that family's own rule faster than
// cuBLASLt's default for such problems; else to cuBLASLt's own heuristic. Pure: it names a family and a
// configuration; building, checking and running them is select/api.hpp's.
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "select/database.hpp"
#include "select/floor.hpp"
#include "tilewise/context.hpp"

namespace tilewise::select {

using Choice = tilewise::Choice;  // include/tilewise/context.hpp

// The fastest of the families the database records for p, or nothing when it does not have p. Their times compare
// roughly: one machine measured them (a database is loaded only under the running identity, or by an override its
// user asked for), on the same buffers and minutes apart (`tilewise tune` runs a problem's families back to back), but
// not interleaved, so a near tie may go either way; `bench` with the arm `selected` judges the result.
std::optional<Choice> from_database(const Database& db, const Problem& p);

// The entries of p's token bucket (bucket_records) whose configuration is feasible for p as far as the CPU can tell
// (each family's feasibility; cuBLASLt's own is asked when built), nearest token count first and within one record
// the fastest family first; each configuration as its family serves p (a GEMV's takes p's token count as its m). Source "bucket", `us` the
// time at the token count it was tuned at.
std::vector<Choice> bucket_choices(const Database& db, const Problem& p, int sm_count = 132);
// Why `c` cannot run p, as far as the CPU can tell; nothing when it may.
std::optional<std::string> infeasible(const Choice& c, const Problem& p, int sm_count = 132);

// Each family's own rule for p, where it has one (families::Family::rule): the decode GEMV's default on the problem's
// own weights in either orientation, and sm90's first shape rule. These are what the floor weighs.
std::vector<Choice> rule_choices(const Problem& p, int sm_count = 132);
// cuBLASLt's own heuristic's choice, source "heuristic": the floor every selection falls back to.
Choice vendor_choice();

// Where the floor's points come from and whether they hold here: `floor` null is the shipped rule, `running` null
// is the rule's own GPU (what `tilewise choose` shows without a GPU).
struct Rules {
  int sm_count = 132;
  const FloorRule* floor = nullptr;
  const Identity* running = nullptr;
  // Serve a bucket's entry untimed where no exact entry is. Off by default: on the T sweep an entry tuned at T = 96
  // ran T = 128 at 0.70x and 0.52x of cuBLASLt's default (docs/notes/2026-12-02-shipped-database.md); with first-use
  // tuning a bucket's entries are timed candidates instead.
  bool serve_buckets = false;
};

// Without a database: the family of rule_choices the floor takes, else cuBLASLt's heuristic.
Choice heuristic_choice(const Problem& p, const Rules& rules = {});
// What the floor says of each family whose rule runs p, a line each: taken (with the least speedup among the
// neighbours that decided it) or why not; one line where the floor holds on another GPU than the running one.
std::vector<std::string> floor_reasons(const Problem& p, const Rules& rules = {});

// The first database (in order) that has p's signature; else, with rules.serve_buckets, the first bucket choice of
// any; else the heuristic's.
// A null database is skipped.
Choice choose(const std::vector<const Database*>& dbs, const Problem& p, const Rules& rules = {});

// choose(), with the index in `dbs` of the database the choice came from (none for the floor's or the heuristic's).
struct SourcedChoice {
  Choice choice;
  std::optional<size_t> database;
};
SourcedChoice choose_sourced(const std::vector<const Database*>& dbs, const Problem& p, const Rules& rules = {});

}  // namespace tilewise::select
