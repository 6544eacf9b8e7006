#pragma once
// The join of receipts by problem, for the report page's two cross-receipt views: the arms side by side per suite,
// and the cross-check of the peer runner's torch.mm against tilewise's cublaslt-default. Plain data only: page.cpp
// renders it. Every entry points back at the receipt, result and arm it was read from.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/page.hpp"

namespace tilewise::report {

// The stem of every `--suite PATH` (or `--suite=PATH`, or several paths after one flag) in a receipt's command, in
// order and without repeats: "tilewise bench --suite suites/llm24.txt -o x.json" -> {"llm24"}. Empty where none.
std::vector<std::string> suites_of(const std::string& command);
inline constexpr const char* no_suite = "other";  // the suite of a receipt whose command names none

// Seconds since 1970 of a receipt's `created` ("2026-11-30T10:33:04Z", UTC, optional fractional seconds), or
// nullopt where it is not in that form.
std::optional<int64_t> utc_seconds(const std::string& created);

// Arm columns in a fixed order: sm90, selected, gemv:* (by name), cublaslt, cublaslt-default, torch, triton, then
// any others by name. Repeats removed.
std::vector<std::string> arm_order(std::vector<std::string> arms);

// A problem as the join knows it: leading dimensions are not part of its identity.
struct ProblemKey {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::bf16;
  Layout layout = Layout::TN;
  auto operator<=>(const ProblemKey&) const = default;
};
ProblemKey key_of(const Problem& p);

// One arm of one result of one receipt.
struct Source {
  const PageReceipt* receipt = nullptr;
  size_t result = 0;
  const receipt::ArmResult* arm = nullptr;
};

// The arm's figure on one problem: from the most recent receipt (by `created`) that has it; `older` are the others
// that have it too, most recent first.
struct SideCell {
  Source shown;
  std::vector<Source> older;
};
struct SideRow {
  ProblemKey problem;
  std::vector<std::optional<SideCell>> cells;  // one per column of the table; empty where the arm did not run it
};
// One suite's receipts measured on one GPU with one buffer mode (warm and cold figures are not comparable).
struct SideTable {
  std::string suite, gpu;
  bool cold = false;
  std::vector<const PageReceipt*> receipts;  // in page order
  std::vector<std::string> arms;             // the columns, in arm_order
  std::vector<SideRow> rows;                 // problems at least two different arms measured
};
// Tables ordered by suite (first seen in page order), then GPU, then warm before cold; rows by problem name (first
// seen), then dtype, then layout. A receipt with several suites is in each of their tables.
std::vector<SideTable> side_by_side(const std::vector<PageReceipt>& receipts);

// torch.mm (the peer runner, tool "tilewise-peers") against cublaslt-default (tool "tilewise") on one problem, both
// correct, from valid receipts on the same GPU with the same buffer mode: the pair of receipts closest in `created`.
inline constexpr double long_kernel_us = 50;                  // cublaslt-default median at or over this is long
inline constexpr double agree_low = 0.95, agree_high = 1.05;  // the torch / cublaslt-default range that agrees
struct CrossRow {
  ProblemKey problem;
  Source torch, vendor;
  double ratio = 0;          // torch us_median / cublaslt-default us_median
  // The same ratio in SM cycles (median time x median SM clock): a gap that vanishes here is the clock the two runs
  // held, not the kernel or the harness. Absent where either arm recorded no clock.
  std::optional<double> cycle_ratio;
  bool long_kernel = false;  // cublaslt-default median >= long_kernel_us
  bool flagged = false;      // a long kernel whose ratio is outside [agree_low, agree_high]
};
struct CrossCheck {
  std::string gpu;
  std::vector<CrossRow> rows;  // in the order of the vendor receipt on the page, then its result index
  int long_kernels = 0, within = 0, outside = 0;
  int outside_within_in_cycles = 0;  // flagged rows whose cycle ratio is within [agree_low, agree_high]
};
struct CrossChecks {
  std::vector<CrossCheck> gpus;              // one per GPU with at least one pair
  std::vector<const PageReceipt*> left_out;  // invalid receipts that would otherwise have taken part
};
CrossChecks cross_check(const std::vector<PageReceipt>& receipts);

}  // namespace tilewise::report
