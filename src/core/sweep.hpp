#pragma once
// The broad sweep the floor is fitted to (select/floor.hpp): a seeded, portable generator of GEMM problems over the
// ranges inference models use, in both orientations and the alignment classes. Every draw comes from SplitMix64, so
// a seed gives the same problems on every machine and compiler.
//
// Problem i of seed S:
//   dtype   bf16 (0.4), fp16 (0.3), fp8 (0.3); layout TN (0.7) or NN (0.3), fp8 always TN (cuBLASLt's only one)
//   tokens  T = round(2^u), u uniform in [0, 14]: 1 .. 16384, log-uniform
//   F, K    features 2^u, u in [8, 15] (256 .. 32768); K 2^u, u in [8, 14.5] (256 .. 23170)
//   orientation  nn.Linear's (0.5: M = F, N = T, y row-major) or the seeds' decode one (M = T, N = F)
//   alignment    aligned (0.4: F and K multiples of 128), odd (0.2: F and K as drawn, F odd), k-tail (0.2: F
//                aligned, K = 64 j + r, r in 1..63), padded (0.2: aligned, every leading dimension +8 or +64)
//   work    T halved until 2 T F K <= 2^39 (about a millisecond at the sustained rate), so a sweep has a known cost
// The fit takes the even indices and is judged on the odd ones (SweepPart).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace tilewise {

struct SweepProblem {
  std::string name;     // "s<seed>_<index>_<lin|col>"
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::bf16;
  Layout layout = Layout::TN;
  int64_t pad = 0;
  std::string alignment;  // aligned, odd, k-tail or padded
  bool linear = false;    // nn.Linear's orientation
};

enum class SweepPart { all, fit, judge };
SweepPart parse_sweep_part(const std::string& s);  // "all", "fit", "judge"

// Problems 0 .. count-1 of the seed (those of the part).
std::vector<SweepProblem> sweep(uint64_t seed, int count, SweepPart part = SweepPart::all);

// The sweep problem a name stands for ("s<seed>_<index>_<lin|col>", as draw() names them), drawn again in constant
// time: what a receipt does not record (the alignment class, the token count) read back from the generator. Empty
// for a name that is not a sweep problem's.
std::optional<SweepProblem> sweep_problem_named(std::string_view name);

// The token band a sweep problem falls in, for reports: "1-16" (decode), "17-256", "257-16384" (prefill).
std::string token_band(const SweepProblem& s);

// The problems as a suite file (core/suite.hpp: each line fixes its dtype, layout and pad), the generator's
// arguments in its header.
std::string sweep_suite_text(const std::vector<SweepProblem>& problems, uint64_t seed, int count, SweepPart part);

}  // namespace tilewise
