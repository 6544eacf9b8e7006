// The crossover between the gemv and the packed sm90 kernel at 1..16 tokens, measured on an H200:
// results/quant-crossover-cold.json (the decode suite's three weight shapes, K = 4096, 8192 and 14336, at 4-16 tokens,
// cold) and results/protocol-packed-8bit.json (1 and 16 tokens). docs/notes/2026-12-04-packed-8bit.md has the table:
// the rule picks the faster kernel at 44 of the 48 points measured (the crossover receipt's 36 and the protocol's 12,
// fp8 and Q8_0 at 1 and 16 tokens) and gives up 0.3-4.7% at the other four. Judged out of sample on a 70B-class
// layer's other three shapes (results/quant-crossover-70b-cold.json, docs/notes/2026-12-04-crossover-70b.md): 31 of 36
// points, the other five 3.8-12.5% slower than the family it passed over.
#include "select/packed_crossover.hpp"

namespace tilewise::select {

namespace {

struct Crossover {
  int64_t min_tokens, min_k;
};
constexpr Crossover kNever{kGemvMaxTokens + 1, 0};

// Q8_0 from 8 tokens on every shape (the gemv widens its bytes through fp32); fp8 from 12 at K >= 8192; int4 g128 from
// 12 at K >= 14336 (of the three shapes, only K = 14336); int4 g32 not measured, so the gemv. K is what separated the
// three shapes measured; more shapes would say whether it is K or the weights' size.
Crossover crossover(WeightFormat f) {
  switch (f) {
    case WeightFormat::q8_0: return {8, 0};
    case WeightFormat::fp8: return {12, 8192};
    case WeightFormat::int4_g128: return {12, 14336};
    case WeightFormat::int4_g32: return kNever;
  }
  return kNever;
}

}  // namespace

bool tensor_cores_ahead(WeightFormat f, int64_t tokens, int64_t in_features) {
  const Crossover c = crossover(f);
  return tokens >= c.min_tokens && in_features >= c.min_k;
}

}  // namespace tilewise::select
