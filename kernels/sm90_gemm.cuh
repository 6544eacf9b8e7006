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
// tile that is three quarters zeros. Only the direct epilogue knows: it stores D(row, col) at C[col * ldc + row].
// Pdl: launched as a programmatic dependent (pdl.h). The producer asks for its first stages' operand tiles into L2
// (a prefetch: L2 is where every SM's writes meet, so a line fetched early is never stale) and then waits for the
// grid before; the consumers wait before they write anything. So a short GEMM's launch, barrier setup and first
// loads' latency overlap the tail of the kernel before it.
#pragma once
#include <cuda/atomic>
#include <cuda/ptx>
#include <cuda/std/type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "pdl.h"
#include "sm90/args.h"
#include "sm90/primitives.h"
#include "sm90/wgmma.h"

namespace tilewise::kernels {

// The configuration, all compile-time. Input: 0 bf16, 1 fp16, 2 fp8 e4m3 (bf16 out). AMajorM: A stored M-major (NN).
// RasterM: consecutive tiles walk along M within a group of Group tile-rows along N (else the transpose).
// Store: 0 direct stores from registers; 1 the whole output tile staged in shared memory and written by TMA; 2 the
// same through a ring of two 64-column atoms per consumer, which leaves big tiles room for a deeper stage ring; 3 the
// tile staged in shared memory and copied out by the consumer threads in 16-byte pieces, for tiles whose width is not
// whole 64-column atoms, which the direct store's scattered 4-byte stores held back (README, sm90).
// Split: 1 every tile whole; S > 1 stream-K with at most S pieces per streamed tile (cooperative, no cluster).
// SwapAB: 1 the operands swapped (above). Pdl: 1 launched as a programmatic dependent (above).
template <int BlockM_, int BlockN_, int Stages_, int Consumers_, int Pingpong_, int ClusterM_, int ClusterN_,
          int RasterM_, int Group_, int Input_, int AMajorM_, int Store_, int Split_, int SwapAB_, int Pdl_>
struct Sm90Gemm {
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, Stages = Stages_, Consumers = Consumers_;
  static constexpr int Split = Split_;
  static constexpr bool SwapAB = SwapAB_, Pdl = Pdl_;
  static constexpr bool Pingpong = Pingpong_, RasterM = RasterM_, AMajorM = AMajorM_;
  static constexpr bool TmaStore = Store_ == 1 || Store_ == 2, StoreRing = Store_ == 2, StagedStore = Store_ == 3;
  static constexpr int ClusterM = ClusterM_, ClusterN = ClusterN_, ClusterSize = ClusterM_ * ClusterN_;
  static constexpr int Group = Group_, Input = Input_;
  static constexpr int kElemBytes = Input == 2 ? 1 : 2;
  static constexpr int BlockK = 128 / kElemBytes;          // one swizzle row
  static constexpr int kStepK = Input == 2 ? 32 : 16;      // K of one wgmma
  static constexpr int RowsPerConsumer = Pingpong ? BlockN : BlockN / Consumers;
  static constexpr int kConsumersPerStage = Pingpong ? 1 : Consumers;
  static constexpr int MmasPerConsumer = RowsPerConsumer / 64;
  static constexpr int kAccPerMma = BlockM / 2;
  static constexpr int kThreads = 128 * (Consumers + 1);
  static constexpr int kBTileBytes = BlockN * 128;
  static constexpr int kATileBytes = BlockM * 128;
  static constexpr int kStageBytes = kBTileBytes + kATileBytes;
  // A staged row is padded by 16 bytes, so the eight rows one warp's store writes start in different banks.
  static constexpr int kStagedRowBytes = BlockM * 2 + 16;
  static constexpr int kOutTileBytes = StoreRing     ? Consumers * 2 * RowsPerConsumer * 128
                                       : TmaStore    ? Consumers * RowsPerConsumer * BlockM * 2
                                       : StagedStore ? Consumers * RowsPerConsumer * kStagedRowBytes
                                                     : 0;
  // The share of the multicast operand each CTA of a cluster loads: rows of B (ClusterM) or of A (ClusterN).
  static constexpr int kBRowsLoaded = BlockN / ClusterM;
  static constexpr int kARowsLoaded = BlockM / ClusterN;
  // Dynamic shared memory the launch asks for: the stages, the output tile, and slack to align to 1024 bytes.
  static constexpr int kSharedBytes = Stages * kStageBytes + kOutTileBytes + 1024;
  // setmaxnreg moves registers between the warpgroups of the SM's 64K: the producer gives back what the consumers
  // take (three consumers: 128 * 40 + 384 * 152 <= 65536; a multiple of 8 each). ptxas still compiles every thread
  // to the launch bound's share (128 of a 512-thread CTA), which is why src/families/sm90/feasibility.cpp gives three
  // consumers at most 64 accumulators.
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = Consumers == 1 ? 240 : Consumers == 2 ? 232 : 152;
  static_assert(Consumers >= 1 && Consumers <= 3 && !(Pingpong && Consumers != 2), "1-3 consumers; ping-pong takes 2");
  static_assert(RowsPerConsumer % 64 == 0 && MmasPerConsumer >= 1 && MmasPerConsumer <= 2);
  static_assert(ClusterSize <= 2 && kBRowsLoaded % 8 == 0 && kARowsLoaded % 8 == 0);
  static_assert(!(AMajorM && ClusterN == 2) || BlockM % 128 == 0, "each CTA multicasts whole 64-column atoms");
  static_assert(!AMajorM || BlockM % 64 == 0, "an M-major A tile is loaded in 64-column swizzle atoms");
  static_assert(!TmaStore || BlockM % 64 == 0, "the TMA epilogue stores 64-column swizzle atoms");
  static_assert(!(AMajorM && Input == 2), "fp8 wgmma reads both operands K-major");
  static_assert(Split == 1 || (!Pingpong && ClusterSize == 1), "stream-K runs cooperative CTAs without clusters");
  static_assert(!SwapAB || (Store_ == 0 && !AMajorM), "swapped operands: both K-major, stored from registers");
};

namespace sm90 {

template <class Cfg>
using OutPair = cuda::std::conditional_t<Cfg::Input == 1, __half2, __nv_bfloat162>;

template <class Cfg>
__device__ __forceinline__ OutPair<Cfg> to_out(float x, float y) {
  if constexpr (Cfg::Input == 1) return __floats2half2_rn(x, y);
  else return __floats2bfloat162_rn(x, y);
}

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
// split-K at 8 pieces or fewer (sn_32_dec took 11.7 us at split 16 against 8.8 at 8, results/llm24-splitk-dec.json).
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

template <class Cfg>
__device__ __forceinline__ void store_direct(const float* acc, const Sm90GemmArgs& args, int row0, int col0) {
  using Pair = OutPair<Cfg>;
  using Elem = cuda::std::conditional_t<Cfg::Input == 1, __half, __nv_bfloat16>;
  Elem* c = static_cast<Elem*>(args.c);
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < Cfg::BlockM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + warp * 16 + lane / 4 + 8 * h, col = col0 + 8 * j + 2 * (lane % 4);
      if (row >= args.N) continue;
      const Pair v = to_out<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      if constexpr (Cfg::SwapAB) {  // D is C: a row is C's contiguous m, so the pair lands in two columns of C
        if (col < args.M) c[(long long)col * args.ldc + row] = v.x;
        if (col + 1 < args.M) c[(long long)(col + 1) * args.ldc + row] = v.y;
        continue;
      }
      Elem* p = c + (long long)row * args.ldc + col;
      if (col + 1 < args.M && args.ldc % 2 == 0) {
        *reinterpret_cast<Pair*>(p) = v;
      } else {
        if (col < args.M) p[0] = v.x;
        if (col + 1 < args.M) p[1] = v.y;
      }
    }
}

// Writes one 64-row accumulator block into `rows` (the staged store's buffer, kStagedRowBytes a row) as the output
// type.
template <class Cfg>
__device__ __forceinline__ void stage_rows(const float* acc, uint8_t* rows) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int j = 0; j < Cfg::BlockM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = warp * 16 + lane / 4 + 8 * h, col = 8 * j + 2 * (lane % 4);
      *reinterpret_cast<OutPair<Cfg>*>(rows + row * Cfg::kStagedRowBytes + col * 2) =
          to_out<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
    }
}

// A consumer's staged rows to D: consecutive threads take consecutive 16-byte pieces of a row, so each warp writes
// whole 128-byte lines where the tile is inside D. Pieces past D's edge, or a D whose rows are not 16-byte aligned,
// go element by element.
template <class Cfg>
__device__ __forceinline__ void copy_out(const uint8_t* rows, const Sm90GemmArgs& args, int row0, int col0,
                                         int consumer_thread) {
  using Elem = cuda::std::conditional_t<Cfg::Input == 1, __half, __nv_bfloat16>;
  constexpr int kPieces = Cfg::BlockM / 8;  // 16 bytes of a row each
  Elem* c = static_cast<Elem*>(args.c);
  const bool vectors = args.ldc % 8 == 0 && reinterpret_cast<uintptr_t>(c) % 16 == 0;
#pragma unroll 4
  for (int i = consumer_thread; i < Cfg::RowsPerConsumer * kPieces; i += 128) {
    const int r = i / kPieces, piece = i % kPieces;
    const int row = row0 + r, col = col0 + 8 * piece;
    if (row >= args.N || col >= args.M) continue;
    const uint4 v = *reinterpret_cast<const uint4*>(rows + r * Cfg::kStagedRowBytes + 16 * piece);
    Elem* p = c + (long long)row * args.ldc + col;
    if (vectors && col + 8 <= args.M) {
      *reinterpret_cast<uint4*>(p) = v;
    } else {
      const Elem* e = reinterpret_cast<const Elem*>(&v);
#pragma unroll
      for (int x = 0; x < 8; ++x)  // unrolled, so e[x] stays in registers
        if (col + x < args.M) p[x] = e[x];
    }
  }
}

// Writes the 64-column atom `atom` of one 64-row accumulator block into shared memory, in the 128B-swizzled layout
// the TMA store reads: rows of 128 bytes with their 16-byte chunks permuted by row. The permutation also spreads a
// warp's eight rows over all 32 banks.
template <class Cfg>
__device__ __forceinline__ void stage_atom(const float* acc, uint8_t* atom_tile, int row0, int atom) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
#pragma unroll
  for (int jj = 0; jj < 8; ++jj)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = atom * 8 + jj;
      const int row = row0 + warp * 16 + lane / 4 + 8 * h;
      uint8_t* p = atom_tile + row * 128 + ((jj ^ (row % 8)) * 16) + 4 * (lane % 4);
      *reinterpret_cast<OutPair<Cfg>*>(p) = to_out<Cfg>(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
    }
}

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
  auto b_tile = [&](int s) { return smem + s * Cfg::kStageBytes; };
  auto a_tile = [&](int s) { return smem + s * Cfg::kStageBytes + Cfg::kBTileBytes; };
  uint8_t* out_tile = smem + Cfg::Stages * Cfg::kStageBytes;

  const int warpgroup = threadIdx.x / 128;
  const int rank = Cfg::ClusterSize > 1 ? int(sm90::cluster_rank()) : 0;
  if (threadIdx.x == 0) {
    // The descriptors live in kernel parameter memory: fetch them while the barriers are set up, not at the
    // first load and store.
    sm90::prefetch_tensormap(&a_map);
    sm90::prefetch_tensormap(&b_map);
    if constexpr (Cfg::TmaStore) sm90::prefetch_tensormap(&c_map);
    for (int s = 0; s < Cfg::Stages; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      // One arrival per consumer warp of every CTA that reads the stage: a multicast half may be overwritten only
      // when the peer is done with it too. (Per warp, not per thread: each arrival is a release at cluster scope.)
      ptx::mbarrier_init(&empty[s], Cfg::kConsumersPerStage * 4 * Cfg::ClusterSize);
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

  if (warpgroup == 0) {  // producer: one thread issues every load
    sm90::release_registers<Cfg::kProducerRegisters>();
    if (threadIdx.x == 0) {
      const uint16_t both = 0b11;
      const int b_share = Cfg::ClusterM == 2 ? rank * Cfg::kBRowsLoaded : 0;
      const int a_share = Cfg::ClusterN == 2 ? rank * Cfg::kARowsLoaded : 0;
      int stage = 0;
      uint32_t phase = 0;
      bool waiting = Cfg::Pdl;
      plan.for_each([&](int t, int k_begin, int k_end) {
        int tm, tn;
        sm90::tile_coords<Cfg>(t, tiles_m, tiles_n, rank, tm, tn);
        if (waiting) {  // the boxes this CTA loads into its first stages, into L2; then the grid before must be done
          for (int kt = k_begin; kt < min(k_end, k_begin + Cfg::Stages); ++kt) {
            const int k0 = kt * Cfg::BlockK;
            sm90::prefetch_box_l2(&b_map, k0, tn * Cfg::BlockN + b_share);
            if constexpr (Cfg::AMajorM) {
              for (int atom = 0; atom < Cfg::kARowsLoaded / 64; ++atom)
                sm90::prefetch_box_l2(&a_map, tm * Cfg::BlockM + a_share + atom * 64, k0);
            } else {
              sm90::prefetch_box_l2(&a_map, k0, tm * Cfg::BlockM + a_share);
            }
          }
          wait_for_prerequisites();
          waiting = false;
        }
        for (int kt = k_begin; kt < k_end; ++kt) {
          while (!ptx::mbarrier_try_wait_parity(&empty[stage], phase ^ 1)) {
          }
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[stage],
                                         Cfg::kStageBytes);
          const int k0 = kt * Cfg::BlockK;
          const int32_t b_at[2] = {k0, tn * Cfg::BlockN + b_share};
          if constexpr (Cfg::ClusterM == 2)
            ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, b_tile(stage) + b_share * 128, &b_map,
                                      b_at, &full[stage], both);
          else
            ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, b_tile(stage), &b_map, b_at, &full[stage]);
          if constexpr (Cfg::AMajorM) {
            for (int atom = 0; atom < Cfg::kARowsLoaded / 64; ++atom) {
              const int col = a_share + atom * 64;
              const int32_t a_at[2] = {tm * Cfg::BlockM + col, k0};
              if constexpr (Cfg::ClusterN == 2)
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a_tile(stage) + col * 128, &a_map,
                                          a_at, &full[stage], both);
              else
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a_tile(stage) + col * 128, &a_map,
                                          a_at, &full[stage]);
            }
          } else {
            const int32_t a_at[2] = {k0, tm * Cfg::BlockM + a_share};
            if constexpr (Cfg::ClusterN == 2)
              ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a_tile(stage) + a_share * 128, &a_map,
                                        a_at, &full[stage], both);
            else
              ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, a_tile(stage), &a_map, a_at,
                                        &full[stage]);
          }
          if (++stage == Cfg::Stages) stage = 0, phase ^= 1;
        }
      });
    }
  } else {
    sm90::claim_registers<Cfg::kConsumerRegisters>();
    if constexpr (Cfg::Pdl) wait_for_prerequisites();  // the output, partials and flags the grid before may use
    const int consumer = warpgroup - 1;
    const int consumer_thread = threadIdx.x - 128 * warpgroup;
    // Every piece of the CTA's sequence fills the next k_end - k_begin slots of the ring; a ping-pong consumer takes
    // every other piece and finds its stages by counting the other's.
    int next_slot = 0;
    int local = 0;
    uint32_t turns_waited = 0;
    [[maybe_unused]] uint32_t atoms_staged = 0;  // the store ring's position, carried across tiles
    const int sync_id = 1 + consumer;
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
      sm90::tile_coords<Cfg>(t, tiles_m, tiles_n, rank, tm, tn);
      float acc[Cfg::MmasPerConsumer][Cfg::kAccPerMma];
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kAccPerMma; ++j) acc[i][j] = 0.f;

      int previous = -1;
      for (int kt = k_begin; kt < k_end; ++kt) {
        const int stage = int((slot0 + kt) % Cfg::Stages);
        const uint32_t phase = uint32_t((slot0 + kt) / Cfg::Stages) & 1;
        while (!ptx::mbarrier_try_wait_parity(&full[stage], phase)) {
        }
        sm90::wgmma_fence();
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i) sm90::fence_registers(acc[i], Cfg::kAccPerMma);
        const uint8_t* b_rows = b_tile(stage) + (Cfg::Pingpong ? 0 : consumer * Cfg::RowsPerConsumer) * 128;
#pragma unroll
        for (int k = 0; k < Cfg::BlockK / Cfg::kStepK; ++k) {
          uint64_t a_desc;
          if constexpr (Cfg::AMajorM) a_desc = sm90::smem_descriptor(a_tile(stage) + k * 16 * 128, 64 * 128, 1024);
          else a_desc = sm90::smem_descriptor(a_tile(stage) + k * 32, 16, 1024);
#pragma unroll
          for (int i = 0; i < Cfg::MmasPerConsumer; ++i) {
            const uint64_t b_desc = sm90::smem_descriptor(b_rows + i * 64 * 128 + k * 32, 16, 1024);
            sm90::wgmma<Cfg::Input, Cfg::BlockM, Cfg::AMajorM>(acc[i], b_desc, a_desc);
          }
        }
        sm90::wgmma_commit();
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i) sm90::fence_registers(acc[i], Cfg::kAccPerMma);
        // The batch before this one has finished reading its stage: hand that stage back to its producers.
        sm90::wgmma_wait<1>();
        if (previous >= 0) sm90::release_stage<Cfg>(previous, empty);
        previous = stage;
      }
      if constexpr (Cfg::Pingpong) ptx::mbarrier_arrive(&turn[1 - consumer]);
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < Cfg::MmasPerConsumer; ++i) sm90::fence_registers(acc[i], Cfg::kAccPerMma);
      if (previous >= 0) sm90::release_stage<Cfg>(previous, empty);

      if constexpr (Cfg::Split > 1) {
        if (k_begin > 0) {
          sm90::publish_partial<Cfg>(&acc[0][0], args, consumer, consumer_thread, sync_id);
          return;
        }
        if (k_end < k_tiles) sm90::add_partials<Cfg>(&acc[0][0], args, plan, t, consumer, consumer_thread, sync_id);
      }

      const int row0 = tn * Cfg::BlockN + (Cfg::Pingpong ? 0 : consumer * Cfg::RowsPerConsumer);
      if constexpr (Cfg::StoreRing) {
        uint8_t* ring = out_tile + consumer * 2 * Cfg::RowsPerConsumer * 128;
#pragma unroll
        for (int atom = 0; atom < Cfg::BlockM / 64; ++atom, ++atoms_staged) {
          uint8_t* buffer = ring + (atoms_staged % 2) * Cfg::RowsPerConsumer * 128;
          // Buffers alternate, so every store but the latest must have read its buffer: the one this atom reuses.
          if (consumer_thread == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<1>{});
          sm90::warpgroup_sync(sync_id);
#pragma unroll
          for (int i = 0; i < Cfg::MmasPerConsumer; ++i) sm90::stage_atom<Cfg>(acc[i], buffer, i * 64, atom);
          ptx::fence_proxy_async(ptx::space_shared);
          sm90::warpgroup_sync(sync_id);
          if (consumer_thread == 0) {
            const int32_t c_at[2] = {tm * Cfg::BlockM + atom * 64, row0};
            ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &c_map, c_at, buffer);
            ptx::cp_async_bulk_commit_group();
          }
        }
      } else if constexpr (Cfg::StagedStore) {
        uint8_t* mine = out_tile + consumer * Cfg::RowsPerConsumer * Cfg::kStagedRowBytes;
        sm90::warpgroup_sync(sync_id);  // every thread has copied the previous tile out of the buffer
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
          sm90::stage_rows<Cfg>(acc[i], mine + i * 64 * Cfg::kStagedRowBytes);
        sm90::warpgroup_sync(sync_id);
        sm90::copy_out<Cfg>(mine, args, row0, tm * Cfg::BlockM, consumer_thread);
      } else if constexpr (Cfg::TmaStore) {
        uint8_t* mine = out_tile + consumer * Cfg::RowsPerConsumer * Cfg::BlockM * 2;
        // The previous tile's store must have read the staging tile before it is overwritten.
        if (consumer_thread == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
        sm90::warpgroup_sync(sync_id);
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
#pragma unroll
          for (int atom = 0; atom < Cfg::BlockM / 64; ++atom)
            sm90::stage_atom<Cfg>(acc[i], mine + atom * Cfg::RowsPerConsumer * 128, i * 64, atom);
        ptx::fence_proxy_async(ptx::space_shared);
        sm90::warpgroup_sync(sync_id);
        if (consumer_thread == 0) {
          for (int atom = 0; atom < Cfg::BlockM / 64; ++atom) {
            const int32_t c_at[2] = {tm * Cfg::BlockM + atom * 64, row0};
            ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &c_map, c_at,
                                      mine + atom * Cfg::RowsPerConsumer * 128);
          }
          ptx::cp_async_bulk_commit_group();
        }
      } else {
#pragma unroll
        for (int i = 0; i < Cfg::MmasPerConsumer; ++i)
          sm90::store_direct<Cfg>(acc[i], args, row0 + i * 64, tm * Cfg::BlockM);
      }
    });
    if constexpr (Cfg::TmaStore)
      if (consumer_thread == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  }
  // No CTA leaves while its peer may still arrive on its barriers or multicast into its shared memory.
  if constexpr (Cfg::ClusterSize > 1) sm90::cluster_sync();
}

}  // namespace tilewise::kernels
