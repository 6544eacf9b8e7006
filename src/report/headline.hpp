#pragma once
// The headline of receipts: per suite, orientation, dtype and layout, how an arm (the library's `selected`) compares with
// cuBLASLt's default and its best heuristic candidate, as a markdown table a README or a note can paste. Every row
// names the receipt it comes from. The arm is taken by its name or the name with options ("selected" takes
// "selected:tune:db.json"); the baseline and best by exact name.
#include <string>
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::report {

// A problem's orientation as the suites name it (docs/design.md): "nn.Linear" for a suite whose name ends in
// "-linear" or a problem whose name ends in "_lin" (the sweep's), else "column-major".
std::string orientation_of(const receipt::Result& r);

struct HeadlineRow {
  std::string receipt, suite, orientation;
  DType dtype = DType::bf16;
  Layout layout = Layout::TN;
  int cases = 0;           // problems where the arm and the default both ran correctly
  double vs_default = 0;   // geomean of default / arm
  double vs_best = 0;      // geomean of best / arm over the cases with a best arm; 0 where none has it
  int faster = 0, slower = 0;  // against the default, ranges apart
};

// Rows in receipt, suite, orientation, dtype, layout order.
std::vector<HeadlineRow> headline(const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                                  const std::string& arm, const std::string& baseline = "cublaslt-default",
                                  const std::string& best = "cublaslt");
std::string headline_markdown(const std::vector<HeadlineRow>& rows, const std::string& arm);

}  // namespace tilewise::report
