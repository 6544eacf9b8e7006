#pragma once
// The report's first screen: how much faster `selected` is than cuBLASLt, on which problems. Per mode and GPU, a
// table with a drawing of each row's ratios (report/current.hpp picks the rows); below it the rows on cuBLASLt's
// alignment cliff, then decode against the read bandwidth, then the rows that newer receipts measured again.
#include <string>
#include <vector>

#include "report/current.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

// The sections' HTML; their tables are appended to `tables` (the page writes each also as CSV and markdown).
std::string first_screen(const CurrentHeadline& headline, std::vector<Table>& tables);

}  // namespace tilewise::report
