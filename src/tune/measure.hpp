#pragma once
// How the tuner gets its times. The real implementation is the bench harness (correctness-gated, interleaved
// repeats, clocks sampled); the tests use a scripted, noisy fake. The tuner only asks for samples and judges them.
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "tune/config.hpp"

namespace tilewise::tune {

// One tuning case: a problem for one family.
struct Case {
  std::string id;      // unique in a campaign, e.g. "d4k_qkv_pf bf16 TN sm90"
  std::string family;  // a family of the registry (families/registry.hpp)
  Problem problem;
  bool operator==(const Case&) const = default;
};

struct Timing {
  bool compiled = false;   // it built (a candidate that does not build is counted, not timed)
  std::string error;       // why it has no samples: a build failure, an incorrect output; empty when timed
  std::vector<double> us;  // one figure per repeat, in repeat order; empty when not timed
  bool dropped = false;    // timed no further after a repeat that ruled it out (ruled_out); never adopted or chosen
  // The incumbent's samples from the same interleaved repeats as `us`, where those were not the first candidate's own
  // (a round measured in chunks times the incumbent again in each); empty: the first candidate's `us`. A candidate
  // is judged against these alone: medians from different chunks differ by the clocks' drift between them, and a
  // winner picked across chunks rescaled by the incumbent's medians was the chunk whose scale erred low.
  std::vector<double> incumbent_us;
};

// The incumbent samples candidate i of `t` was timed beside (Timing::incumbent_us).
inline const std::vector<double>& reference_of(const std::vector<Timing>& t, size_t i) {
  return t[i].incumbent_us.empty() ? t[0].us : t[i].incumbent_us;
}

// Whether a candidate's sample rules it out of a strict win: it ran at least `margin` (a fraction) over the incumbent
// timed in the same interleaved repeat. A strict win needs the candidate's whole range below the incumbent's, and the
// repeats of one round drift by about 1%, so such a candidate could win only by the drift undoing the whole margin.
// Timing it further would spend most of a large problem's round on its slowest candidates.
inline bool ruled_out(double candidate_us, double incumbent_us, double margin) {
  return candidate_us >= incumbent_us * (1 + margin);
}

class Measure {
 public:
  virtual ~Measure() = default;
  // Times every candidate of one round for `c`: all of them are given at once so that an implementation can compile
  // them in parallel ahead of timing, check each for correctness, and time the correct ones in interleaved repeats
  // (all candidates once per repeat, order rotated), so that clock drift hits every candidate alike and their ranges
  // compare. The first candidate is the one the others are judged against (the incumbent), timed beside each of
  // them; a measurement may stop timing a candidate that ruled_out says cannot win against it. Returns one Timing
  // per candidate, in order, every sample as measured (never rescaled).
  virtual std::vector<Timing> measure(const Case& c, const std::vector<Config>& candidates) = 0;
};

}  // namespace tilewise::tune
