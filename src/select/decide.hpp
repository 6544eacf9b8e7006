#pragma once
// Which family runs a problem, decided from a receipt that timed each family's database entry side by side. A merged
// database's times come from the campaigns that tuned each family, and campaigns run minutes or days apart under
// clocks that drift by 5-10%, so where two families are within that, their recorded times do not say which is faster
// (llm24: the sm90 entries chosen over cuBLASLt's that way ran up to 5% slower than cublaslt-default). Timed in one
// run, interleaved, they do.
#include <string>
#include <vector>

#include "receipt/receipt.hpp"
#include "select/database.hpp"

namespace tilewise::select {

struct Decision {
  std::string key;     // the problem's signature
  std::string family;  // the family kept
  std::vector<std::pair<std::string, double>> timed;  // each family's median in the receipt, us
};

struct Decided {
  Database db;                      // one family per decided problem, its time the receipt's median
  std::vector<Decision> decisions;  // one per problem the receipt timed every family of
  int undecided = 0;  // problems the receipt has, with several families, of which it timed fewer than all
};

// A family kept unless another runs faster than it by more than `margin` (a fraction of its time): on a near tie,
// which of two families ran faster flips between runs (llm24's sn_256_pf bf16 TN: sm90 1.2% faster than cuBLASLt in
// the deciding receipt, 2.1% slower than cublaslt-default minutes later), so a tie goes to the one preferred.
struct Preference {
  std::string family;  // empty: none, the lowest median wins
  double margin = 0;
};

// For every record of `db` with two or more families, the arms of `r` that ran a database entry (config.source
// "database") for that problem: where they timed every family of the record, the family with the lowest median is
// kept (or the preferred one, unless beaten by more than the margin), the others are dropped from the record; where
// they timed fewer, the record stays as it is, for a later receipt to decide.
// Throws Error naming the arm and problem when an arm ran a configuration other than the database's entry (the
// receipt was made with another database) or a family the record lacks; an arm that failed or was incorrect is not
// a time, and such a problem stays undecided. `origin` names the receipt in the kept entries' source.
Decided decide(Database db, const receipt::Receipt& r, const std::string& origin, const Preference& prefer = {});

}  // namespace tilewise::select
