#pragma once
#include <memory>
#include <string>

#include "bench/arm.hpp"

namespace tilewise::bench {

// The arm `selected`: the library API tilewise::gemm (select/api.hpp) as an application calls it. "selected" selects
// by the heuristic alone; "selected:<database.json>" loads that tuned database for this machine first (a database
// measured under another identity is refused: the arm errs). The receipt records the family, configuration and
// source (database or heuristic) it ran. Returns null for any other name.
std::unique_ptr<Arm> make_selected_arm(const std::string& name);

}  // namespace tilewise::bench
