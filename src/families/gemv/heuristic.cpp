#include "families/gemv/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tilewise::gemv {

// Each rule below was timed side by side with what it replaced; the figures and receipts are in
// docs/notes/2026-12-03-family-rules.md, "The decode GEMV's default configuration" ("the note" below).

namespace {

// How full a grid's last wave is when `per_sm` of its CTAs fit an SM at once (1 for whole waves): a memory-bound
// grid streams its last wave with that fraction of the warps.
double last_wave_fill(int64_t blocks, int per_sm, int sm_count) {
  const int64_t wave = int64_t(per_sm) * sm_count, waves = (blocks + wave - 1) / wave;
  return double(blocks) / double(waves * wave);
}

// How much fuller (in waves) one grid's last wave must be for a rule to prefer it: timing noise is about that.
constexpr double kFillMargin = 0.02;

// The CTAs of `c`'s grid on `p`: one a block of N's columns.
int64_t grid_blocks(const Config& c, const Problem& p) { return (p.N + cta_cols(c) - 1) / cta_cols(c); }

// Fewer blocks in flight (halving unroll, down to `fewest`) rather than spill: where the register estimate is over
// what the CTA's threads leave each of them.
void unroll_within_registers(Config& c, int fewest) {
  while (register_estimate(c) > register_limit(block_threads(c)) && c.unroll > fewest) c.unroll /= 2;
}

// The mma engine's wider tiles: a warp on two or four 16-column tiles feeds each load of x to all of them, where
// their grid still fills the waves; returns `c` where one tile a warp stays. Each rule was timed side by side with
// `c` (the note's "Wider tiles").
Config widest_tiles(const Config& c, const Problem& p, Format weights, int sm_count) {
  Config wide = c;
  wide.threads = 128, wide.ksplit = 4, wide.pdl = true;
  Config two_tiles = wide;
  two_tiles.cols = 32, two_tiles.unroll = 2;
  // Two tiles a warp where their grid fills as much of its last wave as `c`'s (within 0.02 of a wave) or more: for
  // int4 at M <= 8 and for 16-bit and Q8_0 weights from M = 9, where x is a large part of the bytes read.
  const bool sixteen_bit_or_q8 = weights == Format::bf16 || weights == Format::fp16 || weights == Format::q8_0;
  if ((weights == Format::int4_g128 && p.M <= 8) || (sixteen_bit_or_q8 && p.M > 8 && p.dtype != DType::fp8_e4m3)) {
    const double two = last_wave_fill(grid_blocks(two_tiles, p), 3, sm_count);
    const double one = last_wave_fill(grid_blocks(c, p), 16 / (c.threads / 32), sm_count);
    if (two + kFillMargin < one) return c;
    // 16-bit weights from M = 10 take CTAs of 5 warps with K's steps in turns where 4-warp CTAs would fit 4 an SM
    // (the wave rule counts 3), and M = 16 on K-major x the 4 warps in turns; Q8_0 ran slower in turns.
    if (weights != Format::q8_0 && p.M > 8) {
      const bool four_fit = p.M >= 10 && (p.M <= 14 || p.layout == Layout::NN);  // 4-warp CTAs, 4 an SM
      if (four_fit) two_tiles.threads = 160, two_tiles.ksplit = 5;
      two_tiles.interleave = four_fit || (p.M == 16 && p.layout == Layout::TN);
    }
    return two_tiles;
  }
  if (p.M <= 8 || p.dtype == DType::fp8_e4m3) return c;
  // int4 and fp8 at M > 8, where x is the larger part of what is read: the widest tile whose grid still gives each SM
  // about two blocks (1.9).
  for (int cols : weights == Format::int4_g128 ? std::vector<int>{64, 32} : std::vector<int>{32}) {
    wide.cols = cols, wide.unroll = weights == Format::int4_g128 ? 1 : 2;
    if (grid_blocks(wide, p) * 10 >= 19 * int64_t(sm_count)) return wide;
  }
  return c;
}

Config default_on(const Problem& p, Format weights, int sm_count, Engine engine) {
  Config c;
  c.m = int(p.M);
  c.weights = weights;
  c.act = p.dtype;
  c.layout = p.layout;
  c.engine = engine;
  c.threads = 256;
  c.hint = Hint::no_allocate;
  if (engine == Engine::mma_order) {
    // A persistent grid of 16-warp CTAs, x staged once a CTA. One token: K split 16 (a CTA on one 16-row quarter), two
    // blocks a step; from two tokens: K split 8 (two quarters), four blocks a step, two where four would not fit the
    // registers (int4 g32). Within 12% of the fastest of seven settings at each of 19 points (five shapes, 1-8
    // tokens), 1.37x the rule before it by geomean, on an H100 (in sample: results/gemv-order-persistent-h100/,
    // docs/notes/2026-12-07-gemv-order-persistent.md). K split 4 where K leaves a warp less than one step.
    c.cols = 16, c.threads = 512, c.persistent = true, c.pdl = true;
    c.ksplit = p.M == 1 ? 16 : 8;
    c.unroll = p.M == 1 ? 2 : 4;
    unroll_within_registers(c, /*fewest=*/std::max(group_size(weights) / 64, 1));  // whole groups a step
    while (c.ksplit > 4 && p.K / 64 < int64_t(c.ksplit) * c.unroll) c.ksplit /= 2;
    return c;
  }
  if (engine == Engine::bulk) {
    // Eight consumer warps on one tile, four units each a stage, four stages: about 135 KB, one CTA an SM.
    c.cols = 16, c.ksplit = 8, c.unroll = 4, c.persistent = true, c.stages = 4;
    // Fewer units a stage rather than spill (M > 8 int4: four 16-byte loads of x a piece for each 8-token half).
    unroll_within_registers(c, 1);
    return c;
  }
  if (engine == Engine::mma) {
    // Two pieces a row in flight rather than four where four would cost a CTA an SM: fp8 x at M > 8, Q8_0 from
    // M = 12 (the note's "The mma engine's pieces in flight").
    const bool two_pieces = (p.dtype == DType::fp8_e4m3 && p.M > 8) || (weights == Format::q8_0 && p.M >= 12);
    c.cols = 16, c.unroll = two_pieces ? 2 : 4;
  } else {
    // Bytes in flight per lane (16 * cols * unroll) against the registers M's accumulators take.
    c.cols = p.M > 8 ? 1 : 2;
    c.unroll = p.M > 4 && p.M <= 8 ? 2 : 4;
  }
  // At least four CTAs per SM, so the block scheduler can keep every SM streaming to the end: split K inside the CTA
  // when N alone gives too few.
  while (grid_blocks(c, p) < 4 * int64_t(sm_count) && c.ksplit < c.threads / 32) c.ksplit *= 2;
  // The mma engine as the gemv campaign chose it on llm24's M = 16 shapes: launched as a programmatic dependent, K
  // cut over at most four warps; not Q8_0 nor fp8 x, which ran slower so (the note's "PDL and at most four warps").
  const bool sixteen_bit = weights == Format::bf16 || weights == Format::fp16;
  const bool chained = sixteen_bit || ((weights == Format::int4_g128 || weights == Format::fp8) && p.M > 8);
  if (engine == Engine::mma && p.dtype != DType::fp8_e4m3 && chained) {
    c.pdl = true;
    if (!sixteen_bit || p.K <= 8192) c.ksplit = std::min(c.ksplit, 4);
  }
  if (engine == Engine::mma && weights == Format::int4_g128 && (p.M <= 8 || p.N >= 12288)) {
    // int4 on the mma engine: one 16-column tile a CTA, K cut over all its warps, two pieces a row in flight, as a
    // programmatic dependent; 8 warps while M <= 8 and the grid fits one wave, else 4 (the note's "int4 on the mma
    // engine").
    const bool one_wave = p.M <= 8 && (p.N + 15) / 16 * 8 <= 16 * int64_t(sm_count);
    c.threads = one_wave ? 256 : 128, c.ksplit = c.threads / 32, c.unroll = 2, c.pdl = true;
  } else if (engine == Engine::mma && weights == Format::int4_g128 && p.dtype != DType::fp8_e4m3 &&
             p.layout == Layout::TN) {
    // int4 (16-bit K-major x) at M > 8 on a narrower N: 8-warp CTAs of 32 columns hold one an SM (162-168
    // registers), 4-warp CTAs of 16 three; the one whose grid fills more of its last wave
    // (docs/notes/2026-12-04-gemv-int4-small-batch-ctas.md; measured on K-major x only).
    Config four = c;
    four.threads = 128, four.ksplit = 4;
    const double four_fill = last_wave_fill(grid_blocks(four, p), 3, sm_count);
    if (four_fill > last_wave_fill(grid_blocks(c, p), 1, sm_count) + kFillMargin) c = four;
  }
  if (engine == Engine::mma) c = widest_tiles(c, p, weights, sm_count);
  // fp8 weights with fp8 x at M = 1: one L2 request of 256 bytes brings what a row's next four loads read, and a K
  // cut over all the CTA's warps is read in turns, one run of each row at a time (the note's "fp8 weights with fp8
  // x at M = 1").
  if (engine == Engine::mma && weights == Format::fp8 && p.dtype == DType::fp8_e4m3 && p.M == 1) {
    c.hint = Hint::prefetch_256;
    c.interleave = c.ksplit > 1 && c.ksplit == c.threads / 32;
  }
  if (engine == Engine::fma && p.M == 1) {
    // What measured faster than the rule above on both M = 1 shapes timed (the note's "The FMA engine at M = 1").
    if (sixteen_bit || weights == Format::q8_0) {
      c.ksplit = 2, c.unroll = 2;
      // 16-bit weights with 16-bit x overlap each launch's start with the tail of the one before; the formats that
      // dequantize longer did not gain.
      c.pdl = sixteen_bit && p.dtype != DType::fp8_e4m3;
    } else if (weights == Format::int4_g128) {  // (the mma engine's default, above, measured faster still)
      c.threads = 128, c.ksplit = std::min(c.ksplit, 4);
    }
  }
  // A K split takes registers too: give up loads in flight rather than spill (M = 16 int4 on a narrow N).
  unroll_within_registers(c, 1);
  return c;
}

}  // namespace

std::optional<Config> default_config_on(const Problem& p, Format weights, Engine engine, int sm_count) {
  Config c = default_on(p, weights, sm_count, engine);
  if (!infeasible(c, p).empty()) return std::nullopt;
  return c;
}

double resident_warps(const Config& c, const Problem& p, int sm_count, int compiled_registers) {
  constexpr int kSmThreads = 2048, kSmRegisters = 65536, kSmSharedBytes = 228 * 1024, kCtaReservedShared = 1024;
  const int threads = block_threads(c);
  const int registers = ((compiled_registers > 0 ? compiled_registers : register_estimate(c)) + 7) / 8 * 8;
  const int64_t shared = dynamic_shared_bytes(c, p.K) + kCtaReservedShared;
  const int64_t per_sm = std::min({int64_t(kSmThreads / threads), int64_t(kSmRegisters / (registers * threads)),
                                   int64_t(kSmSharedBytes / shared)});
  const double grid_share = double(grid_blocks(c, p)) / sm_count;
  return std::min(double(per_sm), grid_share) * (threads / 32);
}

Config default_config(const Problem& p, Format weights, int sm_count, std::optional<Engine> engine) {
  // The mma engine from M = 2 (and for int4 g128 and fp8 x at M = 1), the FMA kernel at M = 1 and where N gives fewer
  // 16-column tiles than SMs, which the FMA kernel's one column a warp spreads over more of them
  // (the note's "The engine by M and N").
  const bool narrow = p.N < 16 * int64_t(sm_count);
  const bool m1_mma = (weights == Format::fp8 && p.dtype == DType::fp8_e4m3) || weights == Format::int4_g128;
  const bool fma = narrow || (p.M == 1 && !m1_mma);
  Config c = default_on(p, weights, sm_count, engine.value_or(fma ? Engine::fma : Engine::mma));
  if (!engine && !infeasible(c, p).empty()) c = default_on(p, weights, sm_count, Engine::fma);
  if (std::string why = infeasible(c, p); !why.empty())
    throw Unsupported(fmt::format("{}: no gemv configuration for {} weights: {}", describe(p), to_string(weights), why));
  return c;
}

}  // namespace tilewise::gemv
