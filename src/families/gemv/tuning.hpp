#pragma once
// The decode GEMV family as the tuner's search space, where tilewise::gemm can run it: up to 16 tokens as M, or as N
// in TN (nn.Linear's orientation, families/gemv/view.hpp: the space is the view's), the weights as the problem stores
// them (gemv::native_format: bf16, fp16 or fp8 weights; x in either layout). Four groups, one
// mechanism each, in order of impact:
//   engine  engine, cols, stages          what does the products and how many columns a warp owns; the ring depth
//                                         only the bulk engine has goes with it, so its candidates are whole
//   split   threads, ksplit, interleave   the CTA's shape and how K is cut over its warps (slices, or steps in turns)
//   depth   unroll, prefetch              16-byte loads in flight, and the fma engine's next step loaded ahead
//   stream  hint, persistent, pdl         cache policy, grid, programmatic dependent launch
// Each group lists the values of gemv::feasible_set; whole candidates are filtered by gemv::infeasible. An engine
// binds fields of the other groups (the bulk engine runs a persistent grid with every warp on one tile; prefetch is
// the fma engine's, interleave the mma engine's), so a candidate infeasible beside the incumbent is refitted to the
// feasible configuration nearest it that keeps the round's values, rather than dropped: otherwise an incumbent on the
// fma engine without a persistent grid would never meet the bulk engine.
#include <optional>
#include <string>

#include "families/gemv/config.hpp"
#include "families/space.hpp"

namespace tilewise::gemv {

// Why the tuner does not take the gemv family to `p` (no view: over 16 tokens either way), or nothing when it does.
std::optional<std::string> unsupported(const Problem& p);

// Throws Unsupported naming why for a problem outside the family, or one with no feasible configuration.
families::Space space(const Problem& p);
// The space with `start` as the warm start, or default_config without one.
families::Tunable tunable(const Problem& p, int sm_count, const std::optional<Config>& start = {});

// Through the family's canonical string, with stages, prefetch and interleave always written out, last and in that
// order: the family's text leaves them out at 0, but the groups open them, so every configuration must have them
// (and gemv::parse_config takes them at 0).
families::Fields tuner_fields(const Config& c);
Config from_fields(const families::Fields& f);

}  // namespace tilewise::gemv
