// The crossover between the gemv and the packed sm90 kernel at 1..16 tokens, measured on an H200:
// results/quant-crossover-cold.json (the decode suite's three weight shapes, K = 4096, 8192 and 14336, at 4-16 tokens,
// cold) and results/protocol-packed-8bit.json (1 and 16 tokens). docs/notes/2026-12-04-packed-8bit.md has the table:
// the rule picks the faster kernel at 44 of the 48 points measured (the crossover receipt's 36 and the protocol's 12,
// fp8 and Q8_0 at 1 and 16 tokens) and gives up 0.3-4.7% at the other four. Judged out of sample on a 70B-class
// layer's other three shapes (results/quant-crossover-70b-cold.json, docs/notes/2026-12-04-crossover-70b.md): 31 of 36
// points, the other five 3.8-12.5% slower than the family it passed over. int4 g128's rule was then refitted on six
// more shapes (results/quant-crossover-fresh.json, docs/notes/2026-12-04-crossover-fresh.md); as it is now, the 70B
// set holds at 32 of 36 (one a tie), the four misses fp8's and Q8_0's, 3.8-6.1%.
#include "select/packed_crossover.hpp"

#include <cstdint>

namespace tilewise::select {

namespace {

struct Crossover {
  int64_t min_tokens, min_k, max_n;  // from min_tokens on, where K >= min_k and N (out features) <= max_n
};
constexpr int64_t kAnyN = INT64_MAX;
constexpr Crossover kNever{kGemvMaxTokens + 1, 0, kAnyN};

// Q8_0 from 8 tokens on every shape (the gemv widens its bytes through fp32); fp8 from 12 at K >= 8192. int4 g128 from
// 12 where N <= 8192 and K >= 5120: the packed kernel ran 1.00-1.86x the gemv's speed on the 7 such shapes measured
// (on the fresh ones the gemv's grid was then 96-224 CTAs of 8 warps at one an SM: a part-full wave or a second one);
// the gemv led on every N >= 10240 (the packed kernel 0.68-0.95x) and on 4096 x 4096 (0.84-0.87x, 128 CTAs, one full
// wave). K >= 5120 is fitted to that one shape; Llama-3-8B's qkv (K = 4096) then kept the gemv ahead, 1.09x at 16
// tokens. Against the gemv's 4-warp CTAs since (gemv/heuristic.cpp), one fitted point now misses: Qwen2.5-14B's o
// (5120 x 5120) at 12 tokens, the gemv 1.05x the packed kernel (docs/notes/2026-12-04-gemv-int4-small-batch-ctas.md).
// int4 g32 not measured, so the gemv.
Crossover crossover(WeightFormat f) {
  switch (f) {
    case WeightFormat::q8_0: return {8, 0, kAnyN};
    case WeightFormat::fp8: return {12, 8192, kAnyN};
    case WeightFormat::int4_g128: return {12, 5120, 8192};
    case WeightFormat::int4_g32: return kNever;
  }
  return kNever;
}

}  // namespace

// The gemv on the copy stages all of x in each CTA's shared memory and splits K over its warps, so it is only as
// fast as the warps an SM keeps busy. Fitted on its one-tile grids on an H100, at 1-8 tokens of int4 g128 on five
// weight shapes (results/gemv-mma-order-tokens-h100/tokens.json, docs/notes/2026-12-07-linear-copy-alone.md): ahead
// of the sm90 kernel at every point with 13.6 or more warps resident (1.07-1.71x; one miss, 0.91x) and behind it at
// the points with 8 or fewer; the threshold is between. Its persistent default since (gemv/heuristic.cpp) keeps 15.5-32
// warps an SM on all nineteen points as compiled (15.5-16 by the register estimate) and ran ahead at each, 1.36-1.97x
// (results/gemv-order-persistent-h100/).
bool order_gemv_ahead(double resident_warps) { return resident_warps >= 12; }

bool tensor_cores_ahead(WeightFormat f, int64_t tokens, int64_t in_features, int64_t out_features) {
  const Crossover c = crossover(f);
  return tokens >= c.min_tokens && in_features >= c.min_k && out_features <= c.max_n;
}

}  // namespace tilewise::select
