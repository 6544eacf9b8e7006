// Stream-K's fixup: a tile cut along K over several CTAs is summed by the CTA holding its first k-tile, in a fixed
// order, from the fp32 partials the others leave in their slots.
#pragma once
#include <cuda/atomic>

#include "sm90/args.h"
#include "sm90/primitives.h"
#include "sm90/schedule.h"

namespace tilewise::kernels::sm90 {

// Stream-K, a piece that does not hold its tile's first k-tile: leave the partial sums in this CTA's slot, laid out
// by thread so that both the stores here and the loads of the finishing CTA are coalesced, then raise the flag.
template <class Cfg>
__device__ __forceinline__ void publish_partial(const float* acc, const Sm90GemmArgs& args, int consumer,
                                                int consumer_thread, int sync_id) {
  constexpr int kVectors = Cfg::MmasPerConsumer * Cfg::kAccPerMma / 4;
  const int slot = blockIdx.x * Cfg::Consumers + consumer;
  float4* out = reinterpret_cast<float4*>(args.partials) + (long long)slot * kVectors * 128 + consumer_thread;
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    __stcg(out + v * 128, make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]));
  // The barrier orders every thread's stores before thread 0's release, which publishes them all at GPU scope.
  warpgroup_sync(sync_id);
  if (consumer_thread == 0)
    cuda::atomic_ref<int, cuda::thread_scope_device>(args.flags[slot]).store(1, cuda::memory_order_release);
}

// Stream-K, the piece holding a tile's first k-tile: add the partials of the CTAs that hold the rest of the tile, in
// CTA order (so the sum is the same every run). Thread j waits for the flag of the j-th CTA after this one (and
// j + 128, ...), so the pieces' flags are awaited together: one after another, each a round trip to L2, they held
// split-K at 8 pieces or fewer (docs/notes/2026-12-03-family-rules.md).
template <class Cfg>
__device__ __forceinline__ void add_partials(float* acc, const Sm90GemmArgs& args, const WorkPlan<Cfg>& plan,
                                             int tile, int consumer, int consumer_thread, int sync_id) {
  constexpr int kVectors = Cfg::MmasPerConsumer * Cfg::kAccPerMma / 4;
  const int tile_end = (tile + 1) * plan.k_tiles;
  int end = blockIdx.x + 1;  // one past the last CTA holding part of the tile
  while (end < args.sk_ctas && plan.sk_begin(end) < tile_end) ++end;
  auto holds_work = [&](int cta) { return plan.sk_begin(cta + 1) != plan.sk_begin(cta); };  // not an empty run
  for (int cta = blockIdx.x + 1 + consumer_thread; cta < end; cta += 128) {
    if (!holds_work(cta)) continue;
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(args.flags[cta * Cfg::Consumers + consumer]);
    while (flag.load(cuda::memory_order_acquire) == 0) {
    }
    flag.store(0, cuda::memory_order_relaxed);
  }
  // The barrier orders each watcher's acquire before every thread's loads below.
  warpgroup_sync(sync_id);
#pragma unroll 4
  for (int cta = blockIdx.x + 1; cta < end; ++cta) {
    if (!holds_work(cta)) continue;
    const float4* in = reinterpret_cast<const float4*>(args.partials) +
                       (long long)(cta * Cfg::Consumers + consumer) * kVectors * 128 + consumer_thread;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const float4 p = __ldcg(in + v * 128);
      acc[4 * v] += p.x, acc[4 * v + 1] += p.y, acc[4 * v + 2] += p.z, acc[4 * v + 3] += p.w;
    }
  }
}

}  // namespace tilewise::kernels::sm90
