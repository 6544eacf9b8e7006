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

// How the descent's winners held up when timed again: an adopted winner is the next round's incumbent, measured
// afresh there, so the ratio of that median to the winner's own is what its adoption claimed against what a second
// measurement found (clocks between the two rounds move it too, in either direction). A winner far slower the second
// time was a measurement artifact, not a faster kernel.
struct Retimed {
  int adoptions = 0;     // adoptions followed by a round that timed the winner again
  double median = 1;     // the median of (next round's incumbent median / winner median)
  int slower_5pct = 0;   // of them, re-timed more than 5% slower
};
Retimed retimed(const std::vector<CaseResult>& cases);

// The descent cases whose confirm round went back to the warm start (tune/descent.hpp): the wins of their rounds did
// not hold beside it.
std::vector<std::string> went_back(const std::vector<CaseResult>& cases);

}  // namespace tilewise::tune
