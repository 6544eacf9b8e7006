// The sm90 GEMM's configuration, all compile-time, and the shared-memory ring it implies (kernels/sm90_gemm.cuh).
#pragma once
#include <cuda/std/cstdint>

#include "sm90/codes.h"
#include "sm90/packed_order.h"

namespace tilewise::kernels {

// Input: a code of sm90/codes.h (fp8 e4m3 multiplies into bf16). AMajorM: A stored M-major (NN).
// RasterM: consecutive tiles walk along M within a group of Group tile-rows along N (else the transpose).
// Store: a code of sm90/codes.h. The staged store copies out tiles whose width is not whole 64-column atoms, which
// the direct store's scattered 4-byte stores held back, and swapped operands' tiles in whole runs of C; the TMA ring
// leaves big tiles room for a deeper stage ring.
// Split: 1 every tile whole; S > 1 stream-K with at most S pieces per streamed tile (cooperative, no cluster).
// SwapAB: 1 the operands swapped (sm90_gemm.cuh). Pdl: 1 launched as a programmatic dependent (sm90_gemm.cuh).
// Weights: a code of sm90/codes.h: B as the problem stores it, or packed int4, Q8_0 or fp8 weights (sm90/packed.h).
template <int BlockM_, int BlockN_, int Stages_, int Consumers_, int Pingpong_, int ClusterM_, int ClusterN_,
          int RasterM_, int Group_, int Input_, int AMajorM_, int Store_, int Split_, int SwapAB_, int Pdl_,
          int Weights_ = sm90::weights_as_input>
struct Sm90Gemm {
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, Stages = Stages_, Consumers = Consumers_;
  static constexpr int Split = Split_;
  static constexpr bool SwapAB = SwapAB_, Pdl = Pdl_;
  static constexpr bool Pingpong = Pingpong_, RasterM = RasterM_, AMajorM = AMajorM_;
  static constexpr bool TmaStore = Store_ == sm90::epilogue_tma || Store_ == sm90::epilogue_tma_ring;
  static constexpr bool StoreRing = Store_ == sm90::epilogue_tma_ring, StagedStore = Store_ == sm90::epilogue_staged;
  static constexpr int ClusterM = ClusterM_, ClusterN = ClusterN_, ClusterSize = ClusterM_ * ClusterN_;
  static constexpr int Group = Group_, Input = Input_;
  static constexpr bool Fp8 = Input == sm90::input_fp8, Fp16Out = Input == sm90::input_fp16;
  static constexpr int kElemBytes = Fp8 ? 1 : 2;
  static constexpr int BlockK = 128 / kElemBytes;          // one swizzle row
  static constexpr int kStepK = Fp8 ? 32 : 16;             // K of one wgmma
  static constexpr int RowsPerConsumer = Pingpong ? BlockN : BlockN / Consumers;
  static constexpr int kConsumersPerStage = Pingpong ? 1 : Consumers;
  static constexpr int MmasPerConsumer = RowsPerConsumer / 64;
  static constexpr int kAccPerMma = BlockM / 2;
  static constexpr int kThreads = 128 * (Consumers + 1);
  // Packed weights: a k-tile of B is BlockN / 64 blocks of 64 rows x 64 int4, Q8_0 or fp8 (2048 or 4096 bytes each),
  // then the group scales of int4 and Q8_0 (64 fp16 a group, one group or two a k-tile); the A tile after them starts
  // on a 1024-byte boundary. fp8's row scales multiply the finished sums (sm90_gemm.cuh).
  static constexpr int Weights = Weights_;
  static constexpr bool Packed = Weights != sm90::weights_as_input;
  static constexpr bool PackedFp8 = Weights == sm90::weights_fp8, PackedQ8 = Weights == sm90::weights_q8_0;
  // Arrivals that hand a stage back: one per consumer warp of every CTA that reads it (sm90_gemm.cuh), or with packed
  // weights, which every consumer thread reads with its own loads, one per consumer thread (sm90/packed.h).
  static constexpr int kStageReleases = kConsumersPerStage * (Packed ? 128 : 4) * ClusterSize;
  static constexpr int kPackedGroup = sm90::packed_group(Weights);
  static constexpr int kPackedBlockBytes = sm90::packed_block_bytes(Weights);
  static constexpr int kScaleBlockBytes = sm90::packed_scale_block_bytes(Weights);
  static constexpr int kPackedTileBytes = BlockN / sm90::kPackedBlockRows * kPackedBlockBytes;
  static constexpr int kBTileBytes = Packed ? sm90::packed_b_tile_bytes(BlockN, Weights) : BlockN * 128;
  static constexpr int kATileBytes = BlockM * 128;
  static constexpr int kStageBytes = kBTileBytes + kATileBytes;
  // A staged row is padded by 16 bytes, so the eight rows one warp's store writes start in different banks. With
  // swapped operands a consumer stages D transposed, one line per column of D (a run C holds contiguously), padded
  // by 16 bytes so the four column pairs one warp's store writes fall in different banks.
  static constexpr int kStagedRowBytes = BlockM * 2 + 16;
  static constexpr int kStagedColumnBytes = RowsPerConsumer * 2 + 16;
  static constexpr int kStagedBytes = SwapAB ? BlockM * kStagedColumnBytes : RowsPerConsumer * kStagedRowBytes;
  static constexpr int kOutTileBytes = StoreRing     ? Consumers * 2 * RowsPerConsumer * 128
                                       : TmaStore    ? Consumers * RowsPerConsumer * BlockM * 2
                                       : StagedStore ? Consumers * kStagedBytes
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
  static_assert(!(AMajorM && Fp8), "fp8 wgmma reads both operands K-major");
  static_assert(Split == 1 || (!Pingpong && ClusterSize == 1), "stream-K runs cooperative CTAs without clusters");
  static_assert(!SwapAB || ((Store_ == sm90::epilogue_direct || StagedStore) && !AMajorM),
                "swapped operands: both K-major, stored from registers or staged transposed");
  static_assert(!Packed || (!Fp8 && !AMajorM && ClusterSize == 1 && !Pdl && Consumers <= 2),
                "packed weights: 16-bit K-major activations, no cluster, no programmatic launch, 1-2 consumers");
};

namespace sm90 {

// The ring of stages in shared memory (each a B tile, then an A tile, 1024-byte aligned) with its barriers: full[s]
// completes when stage s holds its tiles, empty[s] when every consumer warp that reads it (in every CTA of the
// cluster) is done with it.
template <class Cfg>
struct Ring {
  uint8_t* smem;
  uint64_t* full;
  uint64_t* empty;
  __device__ __forceinline__ uint8_t* b_tile(int s) const { return smem + s * Cfg::kStageBytes; }
  __device__ __forceinline__ uint8_t* a_tile(int s) const { return smem + s * Cfg::kStageBytes + Cfg::kBTileBytes; }
  // The output tile the staged and TMA stores use, after the stages.
  __device__ __forceinline__ uint8_t* out_tile() const { return smem + Cfg::Stages * Cfg::kStageBytes; }
};

}  // namespace sm90
}  // namespace tilewise::kernels
