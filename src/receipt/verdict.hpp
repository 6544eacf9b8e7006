#pragma once
// Judging preregistered predictions against a receipt's results. The bench judges when it writes a receipt and
// the checker judges again, with this one definition.
#include <string>
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::receipt {

// The metrics a prediction may name.
const std::vector<std::string>& prediction_metrics();

// The result, or the skipped entry, of the problem `name` in `dtype` and `layout` (as a prediction names a problem);
// null where the receipt has none. The checker (receipt/check.hpp) asks whether each planned problem is in one.
const Result* find_result(const Receipt& r, const std::string& name, const std::string& dtype, const std::string& layout);
const Skipped* find_skipped(const Receipt& r, const std::string& name, const std::string& dtype, const std::string& layout);

// Fills measured, verdict, reason and claim of one prediction from the receipt's results.
void judge(Prediction& p, const Receipt& r);

}  // namespace tilewise::receipt
