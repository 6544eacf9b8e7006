// The sm90 GEMM's consumer k-loop: a warpgroup multiplies the stages of one piece of a tile with wgmma into its
// accumulators, handing each stage back to the producers as soon as the batch reading it has finished.
#pragma once
#include <cuda/ptx>

#include "sm90/config.h"
#include "sm90/primitives.h"
#include "sm90/wgmma.h"

namespace tilewise::kernels::sm90 {

// A consumer warp is done with `stage` (its warpgroup's wgmma reading it has completed): lane 0 tells the
// producers of every CTA that loaded into it.
template <class Cfg>
__device__ __forceinline__ void release_stage(int stage, uint64_t* empty) {
  if (threadIdx.x % 32 != 0) return;
  if constexpr (Cfg::ClusterSize == 1) {
    cuda::ptx::mbarrier_arrive(&empty[stage]);
  } else {
    for (int cta = 0; cta < Cfg::ClusterSize; ++cta) arrive_in_cta(&empty[stage], uint32_t(cta));
  }
}

// acc = the product over k-tiles [k_begin, k_end) of the consumer's rows of B and the tile's A; k-tile kt is in
// ring slot slot0 + kt. A ping-pong consumer arrives on `handover` once it has issued its last batch, so the other
// starts its tile while this one finishes.
template <class Cfg>
__device__ __forceinline__ void multiply(float (&acc)[Cfg::MmasPerConsumer][Cfg::kAccPerMma], const Ring<Cfg>& ring,
                                         int consumer, int slot0, int k_begin, int k_end, uint64_t* handover) {
  namespace ptx = cuda::ptx;
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kAccPerMma; ++j) acc[i][j] = 0.f;

  int previous = -1;
  for (int kt = k_begin; kt < k_end; ++kt) {
    const int stage = int((slot0 + kt) % Cfg::Stages);
    const uint32_t phase = uint32_t((slot0 + kt) / Cfg::Stages) & 1;
    while (!ptx::mbarrier_try_wait_parity(&ring.full[stage], phase)) {
    }
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
    const uint8_t* b_rows = ring.b_tile(stage) + (Cfg::Pingpong ? 0 : consumer * Cfg::RowsPerConsumer) * 128;
#pragma unroll
    for (int k = 0; k < Cfg::BlockK / Cfg::kStepK; ++k) {
      uint64_t a_desc;
      if constexpr (Cfg::AMajorM) a_desc = smem_descriptor(ring.a_tile(stage) + k * 16 * 128, 64 * 128, 1024);
      else a_desc = smem_descriptor(ring.a_tile(stage) + k * 32, 16, 1024);
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i) {
        const uint64_t b_desc = smem_descriptor(b_rows + i * 64 * 128 + k * 32, 16, 1024);
        wgmma<Cfg::Input, Cfg::BlockM, Cfg::AMajorM>(acc[i], b_desc, a_desc);
      }
    }
    wgmma_commit();
#pragma unroll
    for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
    // The batch before this one has finished reading its stage: hand that stage back to its producers.
    wgmma_wait<1>();
    if (previous >= 0) release_stage<Cfg>(previous, ring.empty);
    previous = stage;
  }
  if constexpr (Cfg::Pingpong) ptx::mbarrier_arrive(handover);
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < Cfg::MmasPerConsumer; ++i) fence_registers(acc[i], Cfg::kAccPerMma);
  if (previous >= 0) release_stage<Cfg>(previous, ring.empty);
}

}  // namespace tilewise::kernels::sm90
