#pragma once
// cuBLASLt's own configuration space as the tuner's search space (seed 003 tunes hipBLASLt's the same way). Four
// groups, one mechanism each, in order of impact:
//   kernel    algo, tile, stages, inner   which kernel runs: its CTA tile and its shared-memory ring
//   split     splitk, reduction           K cut into parts, and where the parts are summed
//   mapping   swizzle, cluster            which CTAs run together: L2 reuse and multicast
//   custom    custom                      the algorithm's own option
// Alternatives come from the capabilities of every algorithm cuBLASLt has for the problem's types
// (families/cublaslt/space.hpp); feasibility is cuBLASLt's own AlgoCheck plus the 64 MiB workspace every arm shares,
// since only cuBLASLt knows which combination of a tile, a split and a cluster it can run. The warm start is the
// heuristic's first candidate, what cublaslt-default (and torch.mm) runs.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "families/cublaslt/config.hpp"
#include "families/cublaslt/space.hpp"
#include "families/space.hpp"

namespace tilewise::cublaslt {

families::Fields tuner_fields(const Config& c);  // through the family's canonical string
Config from_fields(const families::Fields& f);

// Why cuBLASLt cannot run a configuration for the problem, or nothing when it can.
using Check = std::function<std::optional<std::string>(const Config&)>;

// The K splits the split group offers (with every reduction scheme an algorithm's mask allows), and the cluster
// shapes the mapping group offers: AUTO and the power-of-two shapes of at most 8 CTAs (Hopper's portable limit).
std::vector<uint32_t> splitk_values();
std::vector<uint16_t> cluster_values();

// The space from capabilities and a check; no GPU needed (the tests pass made-up capabilities and a rule). Throws
// Unsupported when `caps` is empty. The check is asked once per configuration (its answers are kept).
families::Space space(const std::vector<AlgoCaps>& caps, Check check);

// The space for one problem on the GPU: capabilities read from cuBLASLt, AlgoCheck as the check, and `start` as the
// warm start, else the heuristic's first candidate. `ctx` must outlive the result (its check holds the problem's
// descriptors).
families::Tunable tunable(const Context& ctx, const Problem& p, const std::optional<Config>& start = {});

}  // namespace tilewise::cublaslt
