#pragma once
// Choosing among candidates as the harness's searching arms do (the cublaslt arm, sm90:sweep): each candidate made
// current in turn, checked against the reference, and given its own timing graph; then timed in interleaved rounds,
// so clock drift under the power cap hits them all alike (timed one after another, a candidate once won by 15% what
// it lost in the repeats that followed); the fastest correct one wins. The tuner's measure (src/bench/tune_measure.cpp)
// times its candidates with the same rounds (device::time_interleaved).
#include <functional>
#include <memory>
#include <vector>

#include "families/arm.hpp"
#include "device/timing.hpp"

namespace tilewise::families {

struct Chosen {
  std::vector<receipt::Candidate> tried;  // one per candidate, in order: config, correctness, median while choosing
  size_t best = 0;                        // the fastest correct one; the first when none is correct
};

// `use(i)` makes candidate i the one `launch` runs (throwing Error when it cannot run: recorded, not fatal). With
// `time` false every candidate is only checked. Leaves the chosen candidate current (none, where every candidate
// threw: the arm refuses with its own reason).
Chosen choose_fastest(const Workbench& wb, const std::vector<nlohmann::json>& configs,
                      const std::function<void(size_t)>& use, const device::Launch& launch, bool time = true);

}  // namespace tilewise::families
