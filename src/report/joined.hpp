#pragma once
// The report page's views across receipts (report/compare.hpp joins them): the arms side by side per suite, and
// the peer runner's torch.mm against tilewise's cublaslt-default.
#include <string>
#include <vector>

#include "report/page.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

// Each section's HTML; its tables are appended to `tables`.
std::string side_by_side_section(const std::vector<PageReceipt>& receipts, std::vector<Table>& tables);
std::string cross_check_section(const std::vector<PageReceipt>& receipts, std::vector<Table>& tables);

}  // namespace tilewise::report
