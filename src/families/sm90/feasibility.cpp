#include "families/sm90/feasibility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/error.hpp"
#include "families/sm90/stream_k.hpp"
#include "kernels/sm90/packed_order.h"

namespace tilewise::sm90 {

namespace {

// The wgmma widths kernels/sm90/wgmma.h wraps (scripts/gen_wgmma.py): every multiple of 8 up to 256, so a tile's
// width can fit a token count (tokens on the width with swapped operands).
constexpr int kWidthStep = 8, kMaxWidth = 256;
bool wrapped_width(int w) { return w >= kWidthStep && w <= kMaxWidth && w % kWidthStep == 0; }
// Capped by shared memory. Past 8 only small tiles fit: a 16x64 tile's stage is 10 KB, so 8 stages hold 80 KB of a
// bandwidth-bound decode GEMM's 227 KB in flight.
constexpr int kStages[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16};
constexpr int kMaxStages = 16;
constexpr int kGroups[] = {1, 4, 8, 16};
// Splits the feasible set (the tuner's space) holds: 8 and 16 paid once the fixup awaited every piece at once
// (docs/notes/2026-12-03-family-rules.md, "sm90's feasible set").
constexpr int kSplits[] = {1, 2, 3, 4, 8, 16};
// The persistent grid is at most one CTA an SM, so a split beyond the SMs only evens out the pieces; past 64 a
// 64-k-tile problem's pieces would be empty.
constexpr int kMaxSplit = 64;
// The kernel's static shared memory beside the dynamic allocation: a full and an empty mbarrier a stage and two
// ping-pong turns, at least the 256 bytes budgeted before rings deeper than 8.
int static_shared(int stages) { return std::max(256, (2 * stages + 2) * 8); }

bool tma_stride_ok(int64_t ld, DType d) { return (ld * element_bytes(d)) % 16 == 0; }

// What packed weights on wgmma's 64-row side need (kernels/sm90/packed.h): 16-bit K-major activations, whole 64 x 64
// blocks, no multicast or programmatic launch; and two consumers at most (three, at 128 registers a thread, spilled
// 48 bytes at 192x192 beside int4's fragments).
std::optional<std::string> packed_infeasible(const Config& c, const Problem& p) {
  if (p.dtype == DType::fp8_e4m3)
    return fmt::format("packed {} weights multiply 16-bit activations (bf16 or fp16), not fp8", to_string(c.weights));
  if (p.layout != Layout::TN) return "packed weights take K-major activations (TN)";
  if (c.cluster_m * c.cluster_n != 1) return "packed weights are not multicast: cluster 1x1 only";
  if (c.pdl) return "packed weights are not launched as a programmatic dependent";
  if (c.consumers > 2) return "packed weights run one or two consumers";
  const Problem kp = kernel_view(p, c);
  const int group = weight_group(c.weights);
  if (kp.K % 64 != 0 || (group && kp.K % group != 0))
    return group ? fmt::format("packed {} weights need K to be a multiple of {} (64 x 64 blocks, a scale per {}); K = {}",
                               to_string(c.weights), std::max(64, group), group, kp.K)
                 : fmt::format("packed {} weights need K to be a multiple of 64 (64 x 64 blocks); K = {}",
                               to_string(c.weights), kp.K);
  if (kp.N % 64 != 0)
    return fmt::format("packed {} weights need their {} rows in whole blocks of 64", to_string(c.weights), kp.N);
  // Stream-K's fixup beside 128 accumulators and the fragments spilled 4 bytes (256x128, split 2).
  if (c.split > 1 && accumulator_registers(c) >= 128)
    return fmt::format("stream-K on packed weights beside {} accumulators spills registers", accumulator_registers(c));
  return std::nullopt;
}

}  // namespace

std::span<const int> ring_depths() { return kStages; }

std::optional<Config> with_deepest_ring(Config c, const Problem& p, int most, const Limits& limits) {
  for (auto depth = std::rbegin(kStages); depth != std::rend(kStages); ++depth) {
    c.stages = *depth;
    if (*depth <= most && !infeasible(c, p, limits)) return c;
  }
  return std::nullopt;
}

int block_k(DType d) { return 128 / element_bytes(d); }

int64_t k_tiles(const Problem& p) { return (p.K + block_k(p.dtype) - 1) / block_k(p.dtype); }

int64_t tile_count(const Problem& p, int block_m, int block_n) {
  return ((p.M + block_m - 1) / block_m) * ((p.N + block_n - 1) / block_n);
}

int rows_per_consumer(const Config& c) {
  return c.schedule == Schedule::pingpong ? c.block_n : c.block_n / c.consumers;
}

int shared_bytes(const Config& c) {
  const int b_tile = c.weights == Weights::as_input ? c.block_n * 128
                                                    : kernels::sm90::packed_b_tile_bytes(c.block_n, int(c.weights));
  const int stage = c.block_m * 128 + b_tile;
  const int out_tile = c.store == Store::tma        ? c.consumers * rows_per_consumer(c) * c.block_m * 2
                       : c.store == Store::tma_ring ? c.consumers * 2 * rows_per_consumer(c) * 128
                       : c.store == Store::staged   ? c.consumers * (c.swap ? c.block_m * (rows_per_consumer(c) * 2 + 16)
                                                                          : rows_per_consumer(c) * (c.block_m * 2 + 16))
                                                    : 0;
  return c.stages * stage + out_tile + 1024;
}

// With three consumers ptxas holds every thread to the launch bound's 65536 / 512 = 128 registers: 96 accumulators
// compiled for sm_90a spilled 60 bytes beside stream-K, an M-major A and PDL (192x192, found by CI's slice of the
// feasible set).
int max_accumulators(int consumers) { return consumers == 3 ? 64 : 128; }

int accumulator_registers(const Config& c) { return rows_per_consumer(c) * c.block_m / 128; }

Problem kernel_view(const Problem& p, const Config& c) { return kernel_view(p, c.swap); }

Problem kernel_view(const Problem& p, bool swap) {
  if (!swap) return p;
  Problem k = p;
  std::swap(k.M, k.N);
  std::swap(k.lda, k.ldb);
  return k;
}

void require_tma_expressible(const Problem& p) {
  const int es = element_bytes(p.dtype);
  if (!tma_stride_ok(p.lda, p.dtype))
    throw Unsupported(fmt::format("{}: lda={} is {} bytes, not a multiple of 16, which TMA cannot load (pad lda)",
                                  describe(p), p.lda, p.lda * es));
  if (!tma_stride_ok(p.ldb, p.dtype))
    throw Unsupported(fmt::format("{}: ldb={} is {} bytes, not a multiple of 16, which TMA cannot load (pad ldb)",
                                  describe(p), p.ldb, p.ldb * es));
}

std::optional<std::string> needs_packed_operands(const Config& c) {
  if (c.weights == Weights::as_input) return std::nullopt;
  return fmt::format("weights={} needs the weights packed and their scales, which only the packed arms (sm90:int4, "
                     "sm90:int4-g32, sm90:int8, sm90:fp8) pass", to_string(c.weights));
}

std::optional<std::string> infeasible(const Config& c, const Problem& p, const Limits& limits) {
  const bool m_major_a = p.layout == Layout::NN;
  if (!wrapped_width(c.block_m))
    return fmt::format("block_m={} is not a wgmma width this build wraps", c.block_m);
  const bool tma_store = stores_by_tma(c.store);
  if (c.swap && (m_major_a || tma_store))
    return "swapped operands need both K-major (TN) and the direct or staged store, which write D transposed";
  if ((m_major_a || tma_store) && c.block_m % 64 != 0)
    return fmt::format("block_m={} is not a multiple of 64, which an M-major A tile and the TMA store need", c.block_m);
  if (c.consumers < 1 || c.consumers > 3) return fmt::format("consumers={} is not 1, 2 or 3", c.consumers);
  if (c.schedule == Schedule::pingpong && c.consumers != 2) return "pingpong needs two consumers";
  if (rows_per_consumer(c) % 64 != 0 || rows_per_consumer(c) > 128 || c.block_n % c.consumers != 0)
    return fmt::format("block_n={} does not give each consumer 64 or 128 rows ({} {} consumers)", c.block_n,
                       c.consumers, c.schedule == Schedule::pingpong ? "pingpong" : "cooperative");
  if (c.block_n > 256) return fmt::format("block_n={} exceeds the 256 rows one TMA box holds", c.block_n);
  const bool pair = c.cluster_m * c.cluster_n == 2;
  if (!(c.cluster_m == 1 && c.cluster_n == 1) && !pair)
    return fmt::format("cluster={}x{} is not 1x1, 2x1 or 1x2", c.cluster_m, c.cluster_n);
  if (c.cluster_n == 2 && m_major_a && c.block_m % 128 != 0)
    return fmt::format("cluster 1x2 multicasts whole 64-column atoms of an M-major A: block_m={} has one", c.block_m);
  if (c.cluster_n == 2 && (c.block_m / 2) % 8 != 0)
    return fmt::format("cluster 1x2 halves the A tile: block_m={} is not a multiple of 16", c.block_m);
  if (accumulator_registers(c) > max_accumulators(c.consumers))
    return fmt::format("{} accumulators per thread exceed {} ({} consumer{})", accumulator_registers(c),
                       max_accumulators(c.consumers), c.consumers, c.consumers == 1 ? "" : "s");
  if (c.stages < 2 || c.stages > kMaxStages) return fmt::format("stages={} is outside 2..{}", c.stages, kMaxStages);
  if (shared_bytes(c) + static_shared(c.stages) > limits.shared_bytes_per_block)
    return fmt::format("{} bytes of shared memory exceed {}", shared_bytes(c), limits.shared_bytes_per_block);
  if (c.group < 1 || c.group > 64) return fmt::format("group={} is outside 1..64", c.group);
  if (c.split < 1 || c.split > kMaxSplit) return fmt::format("split={} is outside 1..{}", c.split, kMaxSplit);
  if (c.split > 1 && (c.schedule != Schedule::cooperative || pair))
    return "stream-K (split > 1) runs cooperative consumers without a cluster";
  // Beside the most accumulators a thread holds, two mechanisms leave no register to spare. Compiled for sm_90a,
  // these spilled 8-32 bytes where the same tiles without them did not:
  // - stream-K's fixup (partial addresses and loads) with one consumer: 256x64, and 128x128 with an M-major A;
  // - swapped operands' direct stores: 128x128 ping-pong, 128x256 cooperative. Their staged store (D transposed
  //   through shared memory) did not spill at full accumulators: 256x128 and 128x256 on two consumers, 128x128
  //   ping-pong, 128x192 on three, 256x64 on one, 256x128 at split 2 (`tilewise compile --config`, 2026-12-06).
  if (accumulator_registers(c) >= max_accumulators(c.consumers)) {
    if (c.split > 1 && c.consumers == 1)
      return fmt::format("stream-K beside {} accumulators in one consumer spills registers", accumulator_registers(c));
    if (c.swap && c.store == Store::direct)
      return fmt::format("swapped operands' direct store beside {} accumulators spills registers",
                         accumulator_registers(c));
  }
  // Stream-K's fixup beside 112 accumulators or more: of the stream-K tiles compiled at split 2 for every width,
  // consumer count and store, these spilled 8-24 bytes: 224x128 with the staged store (rows of a width that is not
  // whole 64-column atoms) and 128x256 with the direct store (two 64-row tiles a consumer).
  if (c.split > 1 && accumulator_registers(c) >= 112 &&
      ((c.store == Store::staged && c.block_m % 64 != 0) || (c.store == Store::direct && rows_per_consumer(c) == 128)))
    return fmt::format("stream-K with the {} store beside {} accumulators spills registers",
                       c.store == Store::staged ? "staged" : "direct", accumulator_registers(c));
  // And stream-K in one consumer past 112 with swapped operands or the direct store: widths 232-248 on 64 rows
  // spilled 8 bytes (the unswapped direct store found by CI's slice of the feasible set, 2026-12-06); 224 and two
  // consumers did not.
  if (c.split > 1 && c.consumers == 1 && accumulator_registers(c) > 112 && (c.swap || c.store == Store::direct))
    return fmt::format("stream-K with {} beside {} accumulators in one consumer spills registers",
                       c.swap ? "swapped operands" : "the direct store", accumulator_registers(c));
  if (c.split > 1) {  // only here: feasible_set asks this of every configuration
    const Problem kp = kernel_view(p, c);
    if (!fits_work_plan(tile_count(kp, c.block_m, c.block_n), k_tiles(kp)))
      return "stream-K counts k-tiles over all tiles in 32 bits: this problem has 2^31 or more";
  }
  if (p.dtype == DType::fp8_e4m3 && p.layout != Layout::TN) return "fp8 wgmma needs both operands K-major (TN)";
  if (c.weights != Weights::as_input) {
    if (auto why = packed_infeasible(c, p)) return why;
  }
  if (tma_store && (p.ldc * 2) % 16 != 0)
    return fmt::format("ldc={} is not a multiple of 16 bytes, which the TMA store needs", p.ldc);
  if (!tma_stride_ok(p.lda, p.dtype) || !tma_stride_ok(p.ldb, p.dtype))
    return "lda or ldb is not a multiple of 16 bytes, which TMA loads need";
  return std::nullopt;
}

std::vector<Config> feasible_set(const Problem& p, const Limits& limits) {
  std::vector<Config> out;
  for (int bm = kWidthStep; bm <= kMaxWidth; bm += kWidthStep)
    for (int bn : {64, 128, 192, 256})
      for (int consumers : {1, 2, 3})
        for (int stages : kStages)
          for (Raster raster : {Raster::m, Raster::n})
            for (int group : kGroups)
              for (Store store : {Store::tma, Store::tma_ring, Store::direct, Store::staged})
                for (Schedule schedule : {Schedule::cooperative, Schedule::pingpong})
                  for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}})
                    for (int split : kSplits) {
                      Config c{bm, bn, stages, consumers, raster, group, store, schedule, cm, cn, split};
                      if (infeasible(c, p, limits)) continue;
                      for (bool swap : {false, true}) {
                        c.swap = swap;
                        if (swap && infeasible(c, p, limits)) continue;
                        for (bool pdl : {false, true}) {  // a launch attribute: feasible wherever the kernel is
                          c.pdl = pdl;
                          out.push_back(c);
                        }
                      }
                    }
  return out;
}

}  // namespace tilewise::sm90
