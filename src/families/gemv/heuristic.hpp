#pragma once
// The decode GEMV's default configuration: the rules that pick engine, tile and schedule from the shape without
// measuring (src/families/gemv/heuristic.cpp); what each was measured against is in
// docs/notes/2026-12-03-family-rules.md.
#include <optional>

#include "core/problem.hpp"
#include "families/gemv/config.hpp"

namespace tilewise::gemv {

// The configuration taken without measuring, on `engine`. By default: mma where it takes the weights and activations,
// except at M = 1 for 16-bit, Q8_0 and fp8 weights with 16-bit x and where N gives fewer 16-column tiles than SMs
// (those take fma); enough CTAs for every SM, enough 16-byte loads in flight per SM to cover HBM latency, and the
// tiles a warp the waves favour. Throws Unsupported when nothing is feasible.
Config default_config(const Problem& p, Format weights, int sm_count = 132, std::optional<Engine> engine = {});
// default_config on `engine`, or nothing where that engine cannot run the problem.
std::optional<Config> default_config_on(const Problem& p, Format weights, Engine engine, int sm_count = 132);

// The warps of `c` on `p` resident on an SM on average: the CTAs an SM holds by threads, registers and shared memory
// (dynamic_shared_bytes), and at most the grid's share. The registers are the compiled kernel's where given (ptxas's
// count, jit::ResourceUsage), else register_estimate's (an upper bound, up to twice ptxas's count).
double resident_warps(const Config& c, const Problem& p, int sm_count = 132, int compiled_registers = -1);

}  // namespace tilewise::gemv
