#pragma once
// The library API (include/tilewise/context.hpp) as the tool's own clients use it: the CLI, the harness (the arm
// `selected`) and the tuner reach the plans, identity and first-use records its public header only names.
#include "select/first_use.hpp"
#include "select/identity.hpp"
#include "select/plan.hpp"
#include "tilewise/context.hpp"

namespace tilewise {

// The identity of this machine and build, as the tuner records it and the database is checked against.
select::Identity running_identity();

}  // namespace tilewise
