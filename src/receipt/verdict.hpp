#pragma once
// Judging preregistered predictions against a receipt's results. The bench judges when it writes a receipt and
// the checker judges again, with this one definition.
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::receipt {

// The metrics a prediction may name.
const std::vector<std::string>& prediction_metrics();

// Fills measured, verdict, reason and claim of one prediction from the receipt's results.
void judge(Prediction& p, const Receipt& r);

}  // namespace tilewise::receipt
