#pragma once
// The headline of receipts: how an arm (the library's `selected`) compares with cuBLASLt's default and its best
// heuristic candidate, as a markdown table a README or a note can paste. Rows are per suite, orientation, dtype and
// layout (or pooled per orientation over every receipt given), and always split by the ldc class: a problem whose ldc
// is not a multiple of 8 meets cuBLASLt's alignment cliff, and its wins are labelled so and never pooled with the
// aligned ones. The arm is taken by its name or the name with options ("selected" takes "selected:tune:db.json");
// the baseline and best by exact name.
//
// In place of one arm, a row may take per problem the fastest (by median) of several arms that ran correctly: chosen
// after the fact, so an upper bound on what a selector among them could reach, not what any run of the library did.
#include <string>
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::report {

// A result's orientation as its suite and problem name it (tilewise::orientation_of): "nn.Linear" or "column-major".
std::string orientation_of(const receipt::Result& r);

// Whether C's leading dimension is a multiple of 8 elements: where it is not, cuBLASLt falls off its alignment cliff.
bool aligned_ldc(const Problem& p);

enum class Grouping {
  by_suite,        // one row per receipt, suite, orientation, dtype, layout and ldc class
  by_orientation,  // one row per orientation and ldc class, pooled over every receipt and dtype
  by_dtype,        // one row per suite, orientation, dtype and ldc class, pooled over every receipt and layout
  by_sweep_class,  // sweep problems only (core/sweep.hpp): one row per orientation, alignment class, token band and
                   // ldc class, pooled over every receipt, dtype and layout
};

// The arm a headline measures: one arm, or per problem the fastest of several (`fastest_of`).
struct HeadlineArm {
  HeadlineArm(const char* name) : names{name} {}
  HeadlineArm(std::string name) : names{std::move(name)} {}
  // Refuses (tilewise::Error) fewer than two names, an empty one, and one given twice.
  static HeadlineArm fastest_of(std::vector<std::string> names);
  bool fastest() const { return names.size() > 1; }
  // As the table names it: the arm, or "fastest of A, B, C".
  std::string label() const;
  std::vector<std::string> names;
};

struct HeadlineRow {
  std::string receipt;  // the receipts the row pools, comma-separated
  std::string suite, orientation, dtype, layout;  // "all" where pooled
  std::string sweep_class, tokens;  // by_sweep_class: the generator's alignment class and token band; else empty
  bool aligned = true;     // ldc a multiple of 8
  int cases = 0;           // problems where the arm and the default both ran correctly
  double vs_default = 0;   // geomean of default / arm
  double vs_best = 0;      // geomean of best / arm over the cases with a best arm; 0 where none has it
  // The ranges over the repeats: the geomeans of each case's least and greatest ratio (the slowest repeat of one
  // side against the fastest of the other), as the claim rule reads a case.
  double vs_default_low = 0, vs_default_high = 0, vs_best_low = 0, vs_best_high = 0;
  int faster = 0, slower = 0;  // against the default, ranges apart
  int repeated = 0;  // results left out: a more recent receipt measured the same problem (each counts once)
  // Where the arm tuned on first use (its configuration records first_use.seconds): the median and the longest.
  double tuning_median_s = 0, tuning_max_s = 0;
};

// Rows in key order (receipt, suite, orientation, dtype, layout, class, tokens, aligned before unaligned). A problem
// (its name and core/problem.hpp's problem_identity, as the report page tells problems apart) counts once in a row:
// where several receipts measured it (a copy, a re-run of the suite, an overlapping run), the most recent of them
// that timed both arms counts, by the order in which a newer receipt supersedes an older one on the report page
// (report/supersede.hpp's recency: `created`, then the later in the list); `repeated` counts those left out. Refuses
// (tilewise::Error) an arm given as its own baseline, an arm of a fastest-of that no receipt has, and receipts
// measured on different GPUs. A fastest-of arm may
// hold the baseline or the best arm: where it is the fastest, the case counts at 1x.
std::vector<HeadlineRow> headline(const std::vector<std::pair<std::string, receipt::Receipt>>& receipts,
                                  const HeadlineArm& arm, const std::string& baseline = "cublaslt-default",
                                  const std::string& best = "cublaslt", Grouping grouping = Grouping::by_suite);
// The markdown names the two baselines: "cuBLASLt default" and "cuBLASLt best" for cuBLASLt's arms, else the arm.
std::string headline_markdown(const std::vector<HeadlineRow>& rows, const std::string& arm,
                              const std::string& baseline = "cublaslt-default", const std::string& best = "cublaslt");

}  // namespace tilewise::report
