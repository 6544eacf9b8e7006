#pragma once
// What a campaign file claims, checked against what it holds: every figure a case records (its start, each round's
// latency, its best configuration and time) recomputed from the round samples by the descent's and the grid's own
// rules (tune/descent.hpp, tune/grid.hpp), every time a positive finite number, every problem one the library takes.
// `tilewise check` and `tilewise campaign` judge by it, and nothing is exported or resumed from a campaign it faults.
#include <string>
#include <vector>

#include "tune/campaign.hpp"

namespace tilewise::tune {

// Everything wrong with the unfailed cases of `c` (a failed case is tuned again from its start and its rounds are
// never used), one line each naming the case and the round; empty when it holds. Monotonicity follows: an adoption
// counts only as a strict win of its samples, so no recomputed latency rises (tune::rises reports a recorded rise).
std::vector<std::string> check_campaign(const Campaign& c);

// Throws Error naming `path` and what check_campaign finds, if anything: a campaign is resumed, exported or compared
// only when it holds.
void require_sound(const Campaign& c, const std::string& path);

}  // namespace tilewise::tune
