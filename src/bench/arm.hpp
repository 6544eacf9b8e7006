#pragma once
// The arms the harness measures (families/arm.hpp), by name: each family's (families/registry.hpp), then the arm
// `selected` (the library API, bench/selected_arm.hpp).
#include <memory>
#include <string>
#include <vector>

#include "families/arm.hpp"

namespace tilewise::bench {

using families::Arm;
using families::checked_run;
using families::Workbench;

// Throws Error for an unknown name, naming the known ones.
std::unique_ptr<Arm> make_arm(const std::string& name);

}  // namespace tilewise::bench
