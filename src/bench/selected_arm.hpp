#pragma once
#include <memory>
#include <string>

#include "bench/arm.hpp"

namespace tilewise::bench {

// The arm `selected`: the library API tilewise::gemm (select/api.hpp) as an application calls it, whatever the
// environment says.
//   "selected"                       the library's defaults: the shipped database where this machine may use it, then
//                                    the floor built into the library
//   "selected:floor"                 no database at all
//   "selected:floor:<floor.json>"    no database, and that floor file (`tilewise floor fit`) in place of the built-in
//                                    one: a refitted floor judged before it is built in
//   "selected:<database.json>"       that tuned database alone (one measured on another GPU is refused: the arm errs)
//   "selected:tune:<database.json>"  each new problem tuned on first use into that database (created when missing), as
//                                    TILEWISE_TUNE=1 does
// The receipt records the family, configuration and source it ran, and first-use tuning's time and what it timed.
// The arm's inputs() are the files its name gives.
// Null for any other name.
std::unique_ptr<Arm> make_selected_arm(const std::string& name);

}  // namespace tilewise::bench
