#pragma once
// Which CTA of the persistent grid does which work (kernels/sm90_gemm.cuh follows the plan it is given). Whole
// tiles go round the grid; with stream-K (split > 1), the tiles that would make a last, partial wave are cut along
// K instead and their k-tiles dealt evenly over up to `split` CTAs per tile, so the grid finishes together.
#include <cstdint>

namespace tilewise::sm90 {

struct WorkPlan {
  int dp_tiles = 0;   // tiles [0, dp_tiles) are whole, tile t on CTA t % grid
  int sk_ctas = 0;    // CTAs b < sk_ctas take k-tiles [begin(b), begin(b + 1)) of the streamed tiles
  int sk_share = 0;   // k-tiles per stream-K CTA ...
  int sk_extra = 0;   // ... and one more for the first sk_extra of them
  int begin(int64_t k_tiles, int cta) const;  // as an index over all tiles' k-tiles: tile * k_tiles + k
};

// Whether the kernel's 32-bit k-tile indices reach every k-tile of every tile.
bool fits_work_plan(int64_t tiles, int64_t k_tiles);

// `tiles` tiles of `k_tiles` k-tiles on `grid` CTAs. A remainder too small to give every CTA a piece (fewer than
// grid / split tiles) is streamed together with the last whole wave, so every CTA still gets about one tile's
// k-tiles. Throws Error where the plan does not fit (fits_work_plan).
WorkPlan work_plan(int64_t tiles, int64_t k_tiles, int grid, int split);

// n / d as a multiply and a shift, for 0 <= n < 2^31: n * magic >> shift. The kernel divides this way because a
// division instruction sequence would cost it the uniform datapath.
struct FastDivisor {
  uint32_t magic = 0;
  int shift = 0;
  int divide(int64_t n) const { return int((uint64_t(n) * magic) >> shift); }
};
FastDivisor fast_divisor(int d);  // d >= 1

}  // namespace tilewise::sm90
