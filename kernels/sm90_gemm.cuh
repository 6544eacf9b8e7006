// The Hopper GEMM: a producer warpgroup streams operand tiles with TMA into a ring of shared-memory stages, and one
// to three consumer warpgroups multiply them with wgmma, on a persistent grid.
//
// Problem terms (src/core/problem.hpp, column-major): C(m,n) = sum_k A(m,k) B(k,n), with B K-major and C stored with
// m contiguous. The kernel computes the transpose, D = C^T (N x M, row-major with row stride ldc), so that the weight
// operand B feeds wgmma's 64-row side and C's contiguous m runs along the accumulator's columns:
//   D(n, m) = sum_k B(n, k) A(m, k),   wgmma A <- B tile (K-major),   wgmma B <- A tile (K-major for TN, M-major for NN).
// A block tile is BlockN rows (problem N) by BlockM columns (problem M, the wgmma width). Cooperative: the consumers
// split a tile's rows (64 or 128 each; three consumers make 192-row tiles, the shape that cuts a 1536 square into
// 128 tiles of 192 x 96 for 132 SMs, where 128-row tiles make 1.09 or 0.73 waves). Ping-pong: each consumer takes
// whole tiles in turn, so one multiplies while the other stores. Every k-tile is one 128-byte swizzle row deep: 64
// bf16/fp16 or 128 fp8 elements.
// Clusters of two CTAs on neighbouring tiles share one operand tile: each CTA loads half of it and TMA multicasts
// that half into both CTAs' shared memory (ClusterM = 2: neighbours along M share B; ClusterN = 2: along N share A).
// Stream-K (Split > 1): the tiles that would make a last, partial wave are instead cut along K and their k-tiles
// dealt evenly over the grid (the host's plan); the CTA holding a tile's first k-tile adds the others' fp32
// partials, in a fixed order, and stores the tile. With fewer tiles than SMs this is split-K.
// SwapAB: the host hands the kernel A as its B and B as its A (TN only), so D is C itself and the problem's M runs
// along the 64-row side: a problem with few columns (N = 16) then takes a 16-wide wgmma over N instead of a 64-row
// tile that is three quarters zeros. Only the direct and staged epilogues know: they store D(row, col) at
// C[col * ldc + row] (the staged one through its buffer, transposed, so a line of it is a run of C).
// Packed: B is int4, Q8_0 or fp8 weights in the order of sm90/packed.h, copied into the stages by bulk copies (int4
// and Q8_0 with their group scales) and dequantized by the consumers into wgmma's A registers (TN, 16-bit
// activations, no cluster); fp8's row scales multiply the finished sums before the epilogue.
// Pdl: launched as a programmatic dependent (pdl.h). The producer asks for its first stages' operand tiles into L2
// (a prefetch: L2 is where every SM's writes meet, so a line fetched early is never stale) and then waits for the
// grid before; the consumers wait before they write anything. So a short GEMM's launch, barrier setup and first
// loads' latency overlap the tail of the kernel before it.
#pragma once
#include <cuda/ptx>

#include "pdl.h"
#include "sm90/config.h"
#include "sm90/epilogue.h"
#include "sm90/load.h"
#include "sm90/mma.h"
#include "sm90/packed.h"
#include "sm90/schedule.h"
#include "sm90/stream_k.h"

namespace tilewise::kernels {

namespace sm90 {

// A consumer warpgroup: for each piece of the CTA's work (every other one in ping-pong), the k-loop into its
// accumulators, stream-K's fixup where the tile is cut along K, and the epilogue.
template <class Cfg>
__device__ __forceinline__ void consume(const Ring<Cfg>& ring, uint64_t* turn, const TensorMap* c_map,
                                        const Sm90GemmArgs& args, const WorkPlan<Cfg>& plan, int tiles_m, int tiles_n,
                                        int rank, int consumer) {
  namespace ptx = cuda::ptx;
  const int consumer_thread = threadIdx.x % 128;
  const int sync_id = 1 + consumer;
  Epilogue<Cfg> epilogue{ring.out_tile(), c_map, args, consumer, consumer_thread, sync_id};
  // Every piece of the CTA's sequence fills the next k_end - k_begin slots of the ring; a ping-pong consumer takes
  // every other piece and finds its stages by counting the other's.
  int next_slot = 0;
  int local = 0;
  uint32_t turns_waited = 0;
  plan.for_each([&](int t, int k_begin, int k_end) {
    const int slot0 = next_slot - k_begin;
    next_slot += k_end - k_begin;
    const int index = local++;
    if constexpr (Cfg::Pingpong) {
      if (index % 2 != consumer) return;
      if (index > 0) {
        while (!ptx::mbarrier_try_wait_parity(&turn[consumer], turns_waited & 1)) {
        }
        ++turns_waited;
      }
    }
    int tm, tn;
    tile_coords<Cfg>(t, tiles_m, tiles_n, rank, tm, tn);
    float acc[Cfg::MmasPerConsumer][Cfg::kAccPerMma];
    if constexpr (Cfg::Packed) multiply_packed<Cfg>(acc, ring, consumer, slot0, k_begin, k_end, &turn[1 - consumer]);
    else multiply<Cfg>(acc, ring, consumer, slot0, k_begin, k_end, &turn[1 - consumer]);

    if constexpr (Cfg::Split > 1) {
      if (k_begin > 0) {
        publish_partial<Cfg>(&acc[0][0], args, consumer, consumer_thread, sync_id);
        return;
      }
      if (k_end < plan.k_tiles) add_partials<Cfg>(&acc[0][0], args, plan, t, consumer, consumer_thread, sync_id);
    }
    const int row0 = tn * Cfg::BlockN + (Cfg::Pingpong ? 0 : consumer * Cfg::RowsPerConsumer);
    if constexpr (Cfg::PackedFp8) scale_rows<Cfg>(acc, static_cast<const float*>(args.packed_scales), row0, args.N);
    epilogue.store(acc, row0, tm * Cfg::BlockM);
  });
  epilogue.finish();
}

}  // namespace sm90

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    sm90_gemm(const __grid_constant__ sm90::TensorMap a_map, const __grid_constant__ sm90::TensorMap b_map,
              const __grid_constant__ sm90::TensorMap c_map, const Sm90GemmArgs args) {
  namespace ptx = cuda::ptx;
  extern __shared__ uint8_t shared_raw[];
  __shared__ uint64_t full[Cfg::Stages], empty[Cfg::Stages];
  // Ping-pong turns: turn[c] completes when the other consumer has passed the last stage of its tile. A consumer
  // starts a tile's k-loop only then, so it never waits more than one phase ahead on a stage's barrier (a parity
  // wait cannot tell phase p from p + 2), and the two take the tensor cores in turn.
  __shared__ uint64_t turn[2];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(shared_raw) + 1023) & ~uintptr_t(1023));
  const sm90::Ring<Cfg> ring{smem, full, empty};

  const int warpgroup = threadIdx.x / 128;
  const int rank = Cfg::ClusterSize > 1 ? int(sm90::cluster_rank()) : 0;
  if (threadIdx.x == 0) {
    // The descriptors live in kernel parameter memory: fetch them while the barriers are set up, not at the
    // first load and store.
    sm90::prefetch_tensormap(&a_map);
    if constexpr (!Cfg::Packed) sm90::prefetch_tensormap(&b_map);
    if constexpr (Cfg::TmaStore) sm90::prefetch_tensormap(&c_map);
    for (int s = 0; s < Cfg::Stages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      // One arrival per consumer warp of every CTA that reads the stage: a multicast half may be overwritten only
      // when the peer is done with it too. (Per warp, not per thread: each arrival is a release at cluster scope.)
      // Packed weights: per thread (Cfg::kStageReleases).
      ptx::mbarrier_init(&empty[s], Cfg::kStageReleases);
    }
    if constexpr (Cfg::Pingpong)
      for (int c = 0; c < 2; ++c) ptx::mbarrier_init(&turn[c], 128);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  if constexpr (Cfg::ClusterSize > 1) sm90::cluster_sync();  // the peer's barriers exist before anyone arrives
  else __syncthreads();
  if constexpr (Cfg::Pdl)
    if (threadIdx.x == 0) launch_dependents();

  const int tiles_m = (args.M + Cfg::BlockM - 1) / Cfg::BlockM;
  const int tiles_n = (args.N + Cfg::BlockN - 1) / Cfg::BlockN;
  const int k_tiles = (args.K + Cfg::BlockK - 1) / Cfg::BlockK;
  const sm90::WorkPlan<Cfg> plan{args, k_tiles};

  if (warpgroup == 0) {
    sm90::release_registers<Cfg::kProducerRegisters>();
    if (threadIdx.x == 0)
      sm90::produce<Cfg>(ring, sm90::TileLoads<Cfg>(&a_map, &b_map, &args, rank), plan, tiles_m, tiles_n, rank);
  } else {
    sm90::claim_registers<Cfg::kConsumerRegisters>();
    if constexpr (Cfg::Pdl) wait_for_prerequisites();  // the output, partials and flags the grid before may use
    sm90::consume<Cfg>(ring, turn, &c_map, args, plan, tiles_m, tiles_n, rank, warpgroup - 1);
  }
  // No cluster barrier at the exit: the producer's load tail (sm90/load.h) keeps this CTA until its peer can no longer
  // arrive on its barriers or multicast into its shared memory.
}

}  // namespace tilewise::kernels
