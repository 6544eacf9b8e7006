// Which tiles, and which k-tiles of them, each CTA of the persistent grid works on, in order (the host's plan:
// src/families/sm90/stream_k.hpp).
#pragma once
#include "sm90/args.h"

namespace tilewise::kernels::sm90 {

// Tile t of a persistent CTA's sequence to (tile_m, tile_n), grouped so that CTAs running at the same time share
// operand tiles in L2.
// Cluster tile t (a cluster's ClusterM x ClusterN tiles) to the tile of the CTA of cluster rank `rank`. A CTA whose
// tile falls past the edge still runs: its loads are zero-filled and its stores clipped, and its peer needs its
// half of the shared operand.
template <class Cfg>
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int rank, int& tm, int& tn) {
  const int cluster_tiles_m = (tiles_m + Cfg::ClusterM - 1) / Cfg::ClusterM;
  const int cluster_tiles_n = (tiles_n + Cfg::ClusterN - 1) / Cfg::ClusterN;
  const int outer = Cfg::RasterM ? cluster_tiles_n : cluster_tiles_m;  // the dimension cut into groups
  const int inner = Cfg::RasterM ? cluster_tiles_m : cluster_tiles_n;
  const int per_group = Cfg::Group * inner;
  const int first = (t / per_group) * Cfg::Group;
  const int height = min(outer - first, Cfg::Group);
  const int within = t % per_group;
  const int o = first + within % height, i = within / height;
  tm = (Cfg::RasterM ? i : o) * Cfg::ClusterM + (Cfg::ClusterM == 2 ? rank : 0);
  tn = (Cfg::RasterM ? o : i) * Cfg::ClusterN + (Cfg::ClusterN == 2 ? rank : 0);
}

// A CTA's work, in order: whole tiles (tile, 0, k_tiles) on the persistent grid, then with stream-K one contiguous
// run of the streamed tiles' k-tiles, cut at tile boundaries into pieces (tile, k_begin, k_end). The host works out
// the plan and the divisor: a 64-bit division here is a subroutine call whose result the compiler no longer keeps
// on the uniform datapath, and the k-loop then builds its wgmma descriptors in per-thread registers (45% slower).
template <class Cfg>
struct WorkPlan {
  const Sm90GemmArgs& args;
  int k_tiles;

  // Where the stream-K run of CTA `cta` starts, as a k-tile index over all tiles; cta = sk_ctas is the end.
  __device__ int sk_begin(int cta) const {
    return args.dp_tiles * k_tiles + cta * args.sk_share + min(cta, args.sk_extra);
  }
  __device__ int tile_of(int k_index) const {
    return int((unsigned long long)k_index * args.k_tiles_magic >> args.k_tiles_shift);
  }

  // Two loops, not one with two kinds of step: the whole-tile loop then keeps its state on the uniform datapath
  // exactly as without stream-K (one loop carrying the stream-K cursor as well moved the k-loop's descriptors to
  // per-thread registers: 9% slower on whole waves).
  template <class F>
  __device__ __forceinline__ void for_each(F&& f) const {
    const int stride = gridDim.x / Cfg::ClusterSize;
    for (int t = blockIdx.x / Cfg::ClusterSize; t < args.dp_tiles; t += stride) f(t, 0, k_tiles);
    if constexpr (Cfg::Split > 1) {
      if (int(blockIdx.x) >= args.sk_ctas) return;
      for (int at = sk_begin(blockIdx.x), end = sk_begin(blockIdx.x + 1); at < end;) {
        const int t = tile_of(at);
        const int k_end = min(k_tiles, end - t * k_tiles);
        f(t, at - t * k_tiles, k_end);
        at = t * k_tiles + k_end;
      }
    }
  }
};

}  // namespace tilewise::kernels::sm90
