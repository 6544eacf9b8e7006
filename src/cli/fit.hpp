#pragma once
// `tilewise fit RECEIPT...`: the first rule's constants (sm90::RuleParams) fitted to the `sm90:sweep` results of
// valid receipts, printed with the fit's error against each problem's fastest candidate beside the error of the
// constants in use. The fitted values go into heuristic.hpp by hand, citing the receipt.
#include <string>
#include <vector>

namespace tilewise::cli {

// Returns the exit status: 0 with a fit printed; throws Error naming the receipt for an invalid receipt, one
// without sweep results, or sweeps measured on machines with different SM counts, and naming the problem where the
// sweeps did not time the choice of the constants in use (a sweep from before a rung they take: re-time it).
// `hold_swapped` keeps the swapped tiles' rate at the shipped constants' instead of fitting it.
int run_fit(const std::vector<std::string>& receipts, bool hold_swapped = false);

}  // namespace tilewise::cli
