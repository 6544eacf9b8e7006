#pragma once
// Decode against bandwidth, on the first screen: a decode GEMM streams its weights once, so its figure of merit is
// the bytes it moves per second against what the memory delivers (the read bandwidth the receipt measured).
#include <string>
#include <vector>

#include "report/current.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

// Per headline row with decode problems (report/current.hpp is_decode): the median and range over its problems of
// each arm's GB/s as a fraction of its receipt's read bandwidth; every problem in a table behind a disclosure.
std::string decode_section(const CurrentHeadline& headline, std::vector<Table>& tables);

}  // namespace tilewise::report
