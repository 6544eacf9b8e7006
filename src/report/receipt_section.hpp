#pragma once
// One receipt's section of the report page: its verdict, machine, clocks and protocol, preregistered predictions,
// per-arm summaries, heat maps, decode chart, every result and what was skipped.
#include <string>
#include <vector>

#include "report/page.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

// The section's HTML; its tables are appended to `tables`.
std::string receipt_section(const PageReceipt& p, std::vector<Table>& tables);

// Per arm other than the baseline: "ARM vs BASELINE: geometric mean 1.044x over 12 cases (...)", as HTML.
std::vector<std::string> arm_summaries(const receipt::Receipt& r);

}  // namespace tilewise::report
