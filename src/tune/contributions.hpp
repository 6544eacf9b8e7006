#pragma once
// What each round of the descent contributed across a campaign, as seed 003's Table 3 reports it: per round, the
// speedup over the kernel entering that round (mean, median, the best case) and how many cases it improved, plus a
// last row for all rounds together (warm start over final). The speedups are the trajectory's own ratios, which the
// descent takes from candidates timed side by side, so rounds timed minutes apart still compare.
#include <string>
#include <vector>

#include "tune/trajectory.hpp"

namespace tilewise::tune {

struct Contribution {
  std::string round;  // the group's name, or "all rounds"
  int cases = 0;      // finished descent cases that ran this round
  int improved = 0;   // of them, those whose latency fell in it
  double mean = 1, median = 1, geomean = 1, best = 1;
  std::string best_case;  // the case id of `best`
  bool operator==(const Contribution&) const = default;
};

// Over the finished descent cases of `cases` (grid, running and failed cases are left out), rounds in the order they
// first appear. Empty when no case qualifies.
std::vector<Contribution> contributions(const std::vector<CaseResult>& cases);

// The table as text, one row per round:
//   round        mean   median  geomean   best                    improved
//   kernel     1.086x   1.004x   1.052x   2.82x  d4k_down_pf ...  85 / 144
std::string format_contributions(const std::vector<Contribution>& rows);

// Where a finished descent case's latency rose in some round: "case id: round group X.XX us after Y.YY us". Empty
// when every case is monotone, as the descent promises.
std::vector<std::string> rises(const std::vector<CaseResult>& cases);

}  // namespace tilewise::tune
