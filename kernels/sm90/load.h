// The sm90 GEMM's producer: one thread streams every operand tile the CTA's work needs into the ring of stages with
// TMA, each stage's B rows and A columns as boxes of one 128-byte swizzle row of K.
#pragma once
#include <cuda/ptx>

#include "pdl.h"
#include "sm90/config.h"
#include "sm90/primitives.h"
#include "sm90/schedule.h"

namespace tilewise::kernels::sm90 {

// The boxes one CTA loads for a k-tile: its share of the tile's B rows and of its A columns (64-column atoms when A
// is M-major), each multicast into the same offset of both CTAs of a cluster that shares that operand. Packed
// weights (sm90/packed.h) come as whole blocks and their scales by bulk copies, only the blocks inside B.
template <class Cfg>
struct TileLoads {
  static constexpr int kAtoms = Cfg::AMajorM ? Cfg::kARowsLoaded / 64 : 1;  // A boxes a k-tile
  const TensorMap* a_map;
  const TensorMap* b_map;
  const Sm90GemmArgs* args;
  int b_share, a_share;  // the first B row and A column of a shared tile this CTA loads

  __device__ __forceinline__ TileLoads(const TensorMap* a, const TensorMap* b, const Sm90GemmArgs* args_, int rank)
      : a_map(a),
        b_map(b),
        args(args_),
        b_share(Cfg::ClusterM == 2 ? rank * Cfg::kBRowsLoaded : 0),
        a_share(Cfg::ClusterN == 2 ? rank * Cfg::kARowsLoaded : 0) {}

  // The packed blocks of tile row tn inside B, and the bytes a stage of it receives.
  __device__ __forceinline__ int packed_blocks(int tn) const {
    return min(Cfg::BlockN, args->N - tn * Cfg::BlockN) / 64;
  }
  __device__ __forceinline__ uint32_t stage_bytes(int tn) const {
    if constexpr (Cfg::Packed)
      return uint32_t(Cfg::kATileBytes + packed_blocks(tn) * (Cfg::kPackedBlockBytes + Cfg::kScaleBlockBytes));
    return uint32_t(Cfg::kStageBytes);
  }

  __device__ __forceinline__ void load_packed(const Ring<Cfg>& ring, int stage, int tn, int kt) const {
    namespace ptx = cuda::ptx;
    const int k_blocks = args->K / 64, groups = Cfg::kPackedGroup ? args->K / Cfg::kPackedGroup : 0;
    const int first_group = Cfg::kPackedGroup ? kt * 64 / Cfg::kPackedGroup : 0;
    const uint8_t* q = static_cast<const uint8_t*>(args->packed);
    const uint8_t* scales = static_cast<const uint8_t*>(args->packed_scales);
    for (int b = 0; b < packed_blocks(tn); ++b) {
      const long long nb = tn * (Cfg::BlockN / 64) + b;
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, ring.b_tile(stage) + b * Cfg::kPackedBlockBytes,
                         q + (nb * k_blocks + kt) * Cfg::kPackedBlockBytes, Cfg::kPackedBlockBytes, &ring.full[stage]);
      if constexpr (Cfg::kScaleBlockBytes > 0)
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global,
                           ring.b_tile(stage) + Cfg::kPackedTileBytes + b * Cfg::kScaleBlockBytes,
                           scales + (nb * groups + first_group) * 128, Cfg::kScaleBlockBytes, &ring.full[stage]);
    }
  }

  // A's atom `atom` at k0 of tile column tm: (m, k) in an M-major A's map, (k, m) in a K-major one's.
  __device__ __forceinline__ int a_column(int atom) const { return a_share + atom * 64; }
  __device__ __forceinline__ void a_box(int tm, int k0, int atom, int32_t (&at)[2]) const {
    const int m = tm * Cfg::BlockM + a_column(atom);
    at[0] = Cfg::AMajorM ? m : k0;
    at[1] = Cfg::AMajorM ? k0 : m;
  }

  // The boxes into L2 only, for a launch that must wait for the grid before it to finish.
  __device__ __forceinline__ void prefetch(int tm, int tn, int k0) const {
    if constexpr (!Cfg::Packed) prefetch_box_l2(b_map, k0, tn * Cfg::BlockN + b_share);
    for (int atom = 0; atom < kAtoms; ++atom) {
      int32_t at[2];
      a_box(tm, k0, atom, at);
      prefetch_box_l2(a_map, at[0], at[1]);
    }
  }

  // The boxes into a stage, completing `full` by their bytes.
  __device__ __forceinline__ void load(const Ring<Cfg>& ring, int stage, int tm, int tn, int k0) const {
    if constexpr (Cfg::Packed) {
      load_packed(ring, stage, tn, k0 / Cfg::BlockK);
    } else {
      const int32_t b_at[2] = {k0, tn * Cfg::BlockN + b_share};
      copy<Cfg::ClusterM == 2>(ring.b_tile(stage) + b_share * 128, b_map, b_at, &ring.full[stage]);
    }
    for (int atom = 0; atom < kAtoms; ++atom) {
      int32_t a_at[2];
      a_box(tm, k0, atom, a_at);
      copy<Cfg::ClusterN == 2>(ring.a_tile(stage) + a_column(atom) * 128, a_map, a_at, &ring.full[stage]);
    }
  }

  template <bool Multicast>
  __device__ __forceinline__ static void copy(uint8_t* dst, const TensorMap* map, const int32_t (&at)[2],
                                              uint64_t* full) {
    namespace ptx = cuda::ptx;
    if constexpr (Multicast)
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, at, full, uint16_t(0b11));
    else
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, at, full);
  }
};

// The producer thread: every k-tile of the CTA's work into the next stage of the ring once its consumers have
// released it. Launched as a programmatic dependent, it first asks for its first stages' boxes into L2 (L2 is where
// every SM's writes meet, so a line fetched early is never stale) and then waits for the grid before.
template <class Cfg>
__device__ __forceinline__ void produce(const Ring<Cfg>& ring, const TileLoads<Cfg>& loads, const WorkPlan<Cfg>& plan,
                                        int tiles_m, int tiles_n, int rank) {
  namespace ptx = cuda::ptx;
  int stage = 0;
  uint32_t phase = 0;
  bool waiting = Cfg::Pdl;
  plan.for_each([&](int t, int k_begin, int k_end) {
    int tm, tn;
    tile_coords<Cfg>(t, tiles_m, tiles_n, rank, tm, tn);
    if (waiting) {
      for (int kt = k_begin; kt < min(k_end, k_begin + Cfg::Stages); ++kt) loads.prefetch(tm, tn, kt * Cfg::BlockK);
      wait_for_prerequisites();
      waiting = false;
    }
    for (int kt = k_begin; kt < k_end; ++kt) {
      while (!ptx::mbarrier_try_wait_parity(&ring.empty[stage], phase ^ 1)) {
      }
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &ring.full[stage],
                                     loads.stage_bytes(tn));
      loads.load(ring, stage, tm, tn, kt * Cfg::BlockK);
      if (++stage == Cfg::Stages) stage = 0, phase ^= 1;
    }
  });
  // The load tail in a cluster: every stage taken once more, as if to load it, so this thread returns only after the
  // consumers of both CTAs have released every stage it filled. No peer arrives on this CTA's barriers after that,
  // and no multicast lands here (each is a k-tile this CTA's consumers waited for), so the CTA may exit without a
  // cluster barrier (docs/notes/2026-12-06-sm90-cluster-review.md, F2).
  if constexpr (Cfg::ClusterSize > 1)
    for (int i = 0; i < Cfg::Stages; ++i) {
      while (!ptx::mbarrier_try_wait_parity(&ring.empty[stage], phase ^ 1)) {
      }
      if (++stage == Cfg::Stages) stage = 0, phase ^= 1;
    }
}

}  // namespace tilewise::kernels::sm90
