#include "families/sm90/stream_k.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tilewise::sm90 {

int WorkPlan::begin(int64_t k_tiles, int cta) const {
  return int(dp_tiles * k_tiles + int64_t(cta) * sk_share + std::min(cta, sk_extra));
}

bool fits_work_plan(int64_t tiles, int64_t k_tiles) { return tiles * k_tiles < (int64_t(1) << 31); }

WorkPlan work_plan(int64_t tiles, int64_t k_tiles, int grid, int split) {
  if (!fits_work_plan(tiles, k_tiles))
    throw Error(fmt::format("work plan: {} tiles x {} k-tiles reach 2^31", tiles, k_tiles));
  WorkPlan plan;
  plan.dp_tiles = int(tiles);
  if (split <= 1) return plan;
  int64_t streamed = tiles % grid;  // all of them when there is less than a wave
  if (streamed > 0 && streamed * split < grid && tiles >= streamed + grid) streamed += grid;
  plan.dp_tiles = int(tiles - streamed);
  plan.sk_ctas = int(std::min<int64_t>(grid, streamed * split));
  if (plan.sk_ctas > 0) {
    plan.sk_share = int(streamed * k_tiles / plan.sk_ctas);
    plan.sk_extra = int(streamed * k_tiles % plan.sk_ctas);
  }
  return plan;
}

FastDivisor fast_divisor(int d) {
  if (d < 1) throw Error(fmt::format("fast_divisor: {} is not a positive divisor", d));
  int log2_ceil = 0;
  while ((int64_t(1) << log2_ceil) < d) ++log2_ceil;
  // magic = ceil(2^shift / d) < 2^32 with shift = 31 + ceil(log2 d): exact for every n below 2^31.
  const int shift = 31 + log2_ceil;
  return FastDivisor{uint32_t(((uint64_t(1) << shift) + uint64_t(d) - 1) / uint64_t(d)), shift};
}

}  // namespace tilewise::sm90
