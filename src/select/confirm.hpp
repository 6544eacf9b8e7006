#pragma once
// A database's entries confirmed by an independent run. An entry won where it was tuned, against cuBLASLt's default
// in that run; on another machine of the same kind, or another day, a win of a few percent between two of
// cuBLASLt's own configurations can turn into a loss (the T sweep's gate-up projection at T = 16: 384x16 tiles
// 1.034x faster than the default where tuned, 0.923x in the shipped database's judgement, the default's own time
// moving 7% between the machines; docs/notes/2026-12-02-shipped-database.md). A database that ships keeps an entry
// only where a second receipt, made with that database, timed it faster than cuBLASLt's default with ranges apart;
// each later run made with it drops what it timed slower (ties stay: such an entry has already won twice).
#include <string>
#include <utility>
#include <vector>

#include "receipt/receipt.hpp"
#include "select/database.hpp"

namespace tilewise::select {

struct Confirmation {
  std::string key, family, config;
  double speedup = 0;  // the baseline's median over the entry's
  std::string claim;   // compare's: "faster" kept; "none" or "slower" dropped
};

// What an entry must show in a judging receipt to stay.
enum class Keep {
  faster,      // faster with ranges apart (a confirming run)
  not_slower,  // not slower with ranges apart (a later run over an already confirmed database)
};

struct Confirmed {
  Database db;
  std::vector<Confirmation> judged;  // one per entry the receipt ran
  int dropped = 0;
};

// For every problem of the receipts where `arm` (or it with options) ran an exact entry of `db` (config.source "database")
// beside `baseline`: the entry stays where every time it ran it showed what `keep` asks, else it is dropped (a
// record left with no family goes). Entries the receipt did not run stay as they are. Throws Error naming the problem when the
// arm ran a configuration `db` does not hold (the receipt was made with another database), with its path.
Confirmed confirm(Database db, const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                  Keep keep = Keep::faster, const std::string& arm = "selected",
                  const std::string& baseline = "cublaslt-default");

}  // namespace tilewise::select
