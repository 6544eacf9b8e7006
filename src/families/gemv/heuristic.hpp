#pragma once
// The decode GEMV's default configuration: the rules that pick engine, tile and schedule from the shape without
// measuring (src/families/gemv/heuristic.cpp), each with the receipts that timed it against what it replaced.
#include <optional>

#include "core/problem.hpp"
#include "families/gemv/config.hpp"

namespace tilewise::gemv {

// The configuration taken without measuring, on `engine` (by default fma at M = 1 unless x is fp8, else mma where it
// takes the weights and activations, else fma): enough CTAs for every SM and enough 16-byte loads in flight per SM to
// cover HBM latency at full bandwidth. Throws Unsupported when nothing is feasible.
Config default_config(const Problem& p, Format weights, int sm_count = 132, std::optional<Engine> engine = {});

}  // namespace tilewise::gemv
