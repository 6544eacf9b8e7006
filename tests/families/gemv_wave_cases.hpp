#pragma once
// The CTAs an SM the gemv rule's wave counting assumes its kernels hold (src/families/gemv/heuristic.cpp), case by
// case: checked on the GPU by the occupancy API (GemvGpu.TheWaveRuleCountsTheCtasAnSmTheKernelsHold) and without one
// from the registers ptxas gives each compiled kernel (GemvConfig.TheWaveRuleCountsTheCtasAnSmTheCompiledKernelsHold),
// so that a kernel change that moves a rule configuration across a count fails on the CPU first.
#include <utility>
#include <vector>

#include "families/gemv/heuristic.hpp"
#include "families/gemv_problems.hpp"

namespace tilewise::gemv {

struct WaveCase {
  Config config;
  int cols, threads;  // what the rule is meant to have chosen there (0: any)
  int per_sm;         // CTAs an SM, in both orientations of y
};

inline std::vector<WaveCase> wave_rule_cases() {
  std::vector<WaveCase> out;
  for (auto [act, f] : {std::pair{DType::bf16, Format::bf16}, std::pair{DType::fp16, Format::fp16},
                        std::pair{DType::bf16, Format::q8_0}, std::pair{DType::fp16, Format::q8_0}}) {
    out.push_back({default_config(decode(16, 8192, 4096, act), f), 16, 0, 2});   // one tile a warp
    out.push_back({default_config(decode(16, 12288, 4096, act), f), 32, 0, 3});  // two tiles a warp
  }
  // The 16-bit two-tile kernels at every M the rule gives them (5-warp CTAs from M = 10 where 4 would fit 4 an SM),
  // in both layouts of x.
  for (Layout layout : {Layout::TN, Layout::NN})
    for (auto [act, f] : {std::pair{DType::bf16, Format::bf16}, std::pair{DType::fp16, Format::fp16}})
      for (int64_t m = 9; m <= 16; ++m) {
        Problem p = make_problem("w", m, 12288, 4096, act, layout);
        if (layout == Layout::NN) p.lda = (m + 7) / 8 * 8;  // x's columns 16-byte aligned
        out.push_back({default_config(p, f), 32, 0, 3});
      }
  for (int64_t m : {1, 8}) {
    out.push_back({default_config(decode(m, 4096, 4096), Format::int4_g128), 16, 256, 2});  // a grid of one wave
    out.push_back({default_config(decode(m, 14336, 4096), Format::int4_g128), 16, 128, 4});  // one tile a warp
    out.push_back({default_config(decode(m, 12288, 4096), Format::int4_g128), 32, 0, 3});    // two tiles a warp
  }
  // int4 at M > 8 below N = 8000: one tile a warp, 8-warp CTAs hold one an SM and 4-warp CTAs three.
  for (int64_t m : {9, 16}) {
    out.push_back({default_config(decode(m, 4096, 4096), Format::int4_g128), 0, 256, 1});
    out.push_back({default_config(decode(m, 5120, 5120), Format::int4_g128), 0, 128, 3});
  }
  return out;
}

}  // namespace tilewise::gemv
