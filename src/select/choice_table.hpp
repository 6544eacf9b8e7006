#pragma once
// What selection runs for each problem and where that comes from, as a table a person reads, without a GPU: the
// database's fastest entry where it has the problem's signature, else the floor's pick or cuBLASLt's heuristic
// (select/choice.hpp). What `tilewise choose` prints.
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "select/choice.hpp"
#include "select/database.hpp"

namespace tilewise::select {

// One row a problem: name, type, layout, M x N x K, family, where the choice comes from ("database", with the time
// measured, "floor" or "heuristic"), and the configuration. `db` may be null.
std::string choice_table(const std::vector<Problem>& problems, const Database* db, const Rules& rules);

}  // namespace tilewise::select
