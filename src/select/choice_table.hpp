#pragma once
// What selection runs for each problem and where that comes from, as a table a person reads, without a GPU: a
// database's fastest entry where it has the problem's signature, else its token bucket's, else the floor's pick or
// cuBLASLt's heuristic (select/choice.hpp). What `tilewise choose` prints.
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "select/choice.hpp"
#include "select/database.hpp"

namespace tilewise::select {

// A database searched, with the name a person knows it by ("machine database /home/me/.cache/tilewise/...").
struct NamedDatabase {
  std::string name;
  const Database* db = nullptr;
};

// One row a problem: name, type, layout, M x N x K, the problem read as nn.Linear (docs/design.md: a TN problem is
// y[T = N, F = M] = x W^T with y row-major; NN has no such reading), family, where the choice comes from (a database
// or bucket with the time measured, the floor or the heuristic), and the configuration. The databases are searched in
// order; null ones are skipped. With `reasons`, a choice the floor made is followed by its reasons (floor_reasons), and
// a database's or bucket's by the name of the database it came from, indented.
std::string choice_table(const std::vector<Problem>& problems, const std::vector<NamedDatabase>& dbs,
                         const Rules& rules, bool reasons = false);

}  // namespace tilewise::select
