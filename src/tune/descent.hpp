#pragma once
// The monotone coordinate descent of seed 003: warm start; one group per round, in the space's order; every
// candidate list holds the incumbent; a round's winner is adopted only on a strict win (its range over the
// interleaved repeats wholly below the incumbent's, the receipt's claim rule), so the held configuration can only
// get faster; and a descent that moved ends with the confirm round (kConfirmRound), its result beside the warm start.
#include <functional>

#include "receipt/derive.hpp"
#include "tune/space.hpp"
#include "tune/trajectory.hpp"

namespace tilewise::tune {

// A new case held at its warm start, no round run yet. Throws Error when the warm start is infeasible or the space
// does not fit it.
CaseResult start_case(const Case& c, const Tunable& t, std::string mode);

// Called after every finished round, so a campaign can save there.
using AfterRound = std::function<void(const CaseResult&)>;

// Runs the rounds `state` has not finished (from state.rounds.size() on), then, where the descent moved, the confirm
// round (the warm start adopted back on a strict win), then marks it finished. Throws Error (the caller marks the
// case failed) when the warm start cannot be timed in the first round.
void descend(CaseResult& state, const Tunable& t, Measure& measure, const AfterRound& after_round = {});

using receipt::strictly_faster;

}  // namespace tilewise::tune
