#pragma once
// Which figures make the report's first screen: `selected` (what tilewise::gemm runs) against cuBLASLt, per suite,
// orientation, dtype and ldc class, from the newest valid measurement of each problem. Plain data; first_screen.cpp
// draws it, and every figure is headline()'s (report/headline.hpp), so `tilewise headline --by-dtype --arm ARM
// RECEIPT...` prints each row again.
#include <string>
#include <vector>

#include "report/headline.hpp"
#include "report/page.hpp"

namespace tilewise::report {

// The two ways an application runs the library: its defaults ("selected") and first-use tuning
// ("selected:tune:<database>"). Receipts of a named database or of the floor alone are experiments, not these.
enum class Mode { defaults, first_use };
const char* mode_arm(Mode m);    // the arm as headline() takes it: "selected", "selected:tune"
const char* mode_title(Mode m);  // "the library's defaults", "first-use tuning"

// A receipt takes part where it is valid, not superseded, tilewise's own, cold, runs cublaslt-default, and runs one
// arm of the selected family, in one of the modes.
struct Eligible {
  const PageReceipt* receipt = nullptr;
  Mode mode = Mode::defaults;
};
std::vector<Eligible> eligible_receipts(const std::vector<PageReceipt>& receipts, const std::vector<bool>& superseded);

struct CurrentRow {
  Mode mode = Mode::defaults;
  std::string gpu;
  HeadlineRow figures;
  std::vector<const PageReceipt*> receipts;  // the receipts pooled, most recent first
  const PageReceipt* replaced_by = nullptr;  // for an earlier row: the receipt that measured its problems again
};

struct CurrentHeadline {
  // One row per mode, GPU, suite, orientation, dtype and ldc class, pooling the receipts that measured its problems
  // most recently: a receipt whose problems in the row a more recent one measured too is left out of it.
  std::vector<CurrentRow> rows;
  std::vector<CurrentRow> earlier;  // the rows of the receipts left out, each from its one receipt
};
CurrentHeadline current_headline(const std::vector<Eligible>& eligible);

// The results that make a row: its receipts' problems of its suite, orientation, dtype and ldc class.
bool in_row(const receipt::Result& res, const CurrentRow& row);

// Decode is a handful of tokens: M in the column-major suites, N in nn.Linear's orientation (tokens as N).
bool is_decode(const receipt::Result& res);

}  // namespace tilewise::report
