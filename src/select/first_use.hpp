#pragma once
// Tuning on first use (docs/design.md): the first call of a signature no database holds times a short candidate list
// under the harness's correctness gate, on the library's own random operands rotated cold, and keeps the fastest
// only where its range over interleaved repeats lies wholly below cuBLASLt's default's, by a margin; the default
// otherwise. The harness's tuner
// (bench/tune_measure.hpp) sits above the library, so this uses the same device mechanisms (device::Operands,
// device::Reference, device::time_interleaved) and the receipt's claim rule (receipt::strictly_faster) directly.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "select/plan.hpp"
#include "tilewise/context.hpp"

namespace tilewise::select {

using FirstUseOptions = tilewise::FirstUseOptions;  // its budget (include/tilewise/context.hpp)

struct Timed {
  Choice choice;
  std::optional<double> us;  // the median of its samples; none when it did not run correctly
  std::string error;         // why it was not timed
};

struct FirstUse {
  Choice winner;  // source "first use", `us` its median
  std::vector<Timed> timed;
  size_t winner_index = 0;  // its place in `timed` (0: cuBLASLt's default held)
  std::unique_ptr<Plan> plan;  // the winner, built and checked: the caller runs it rather than building it again
  int not_built = 0;   // candidates the budget left out
  double seconds = 0;  // the whole tuning's wall time
  // "first use 0.84 s, 9 of 9 timed (0 past the budget): cublaslt default: 10.21 us, sm90 rule: 9.80 us, ...; won
  // sm90 rule (1.042x cublaslt default)": what the machine database keeps as the entry's source, and the arm
  // `selected`'s receipt records (first_use.summary).
  std::string summary() const;
};

using PlanMaker = std::function<std::unique_ptr<Plan>(const Choice&)>;

// The short list for p, cuBLASLt's default first (the incumbent, an empty configuration): each family's rule choice,
// the entries of p's bucket that may serve it, cuBLASLt's other heuristic candidates (`vendor_configs` after its
// first), then each family's other rule candidates (sm90's). Each configuration once.
std::vector<Choice> first_use_candidates(const Problem& p, const std::vector<Choice>& bucket,
                                         const std::vector<std::string>& vendor_configs, int sm_count);

// Times `candidates` (the first the incumbent) for p. Throws Unsupported when none runs p correctly.
FirstUse tune_first_use(const Problem& p, const std::vector<Choice>& candidates, const PlanMaker& make,
                        const FirstUseOptions& o = {});

// The correctness gate alone, for a bucket's entry before it serves p: its output on random operands against the
// fp32 reference. Why it fails; nothing when it passes.
std::optional<std::string> check_plan(const Problem& p, Plan& plan);

}  // namespace tilewise::select
