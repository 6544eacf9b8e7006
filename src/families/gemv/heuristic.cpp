#include "families/gemv/heuristic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace tilewise::gemv {

namespace {

// How full a grid's last wave is when `per_sm` of its CTAs fit an SM at once (1 for whole waves): a memory-bound
// grid streams its last wave with that fraction of the warps.
double last_wave_fill(int64_t blocks, int per_sm, int sm_count) {
  const int64_t wave = int64_t(per_sm) * sm_count, waves = (blocks + wave - 1) / wave;
  return double(blocks) / double(waves * wave);
}

// The mma engine's wider tiles: a warp on two or four 16-column tiles feeds each load of x to all of them, and each
// 16 columns read all of x once more (at M = 16 as many bytes as 16-bit weights, twice fp8's, four times int4's).
// Every wide setting is CTAs of 4 warps with K cut in 4 (16-bit weights from M = 10: 5 warps where 4 would fit too
// many CTAs, below), launched as a programmatic dependent; `two_tiles` (two pieces a row in flight) is meant to hold
// 3 CTAs an SM. Returns `c`, the setting the rules before chose, where one tile a warp stays. Each rule was timed
// side by side with `c` (at M = 9..16 on dec_m16_12288 and llm24's four wide M = 16 shapes:
// results/decode-m16-cols32.json, decode-m16-cols64.json, llm24-m16-cols.json) and picks the fastest of those timed,
// or ties it.
Config widest_tiles(const Config& c, const Problem& p, Format weights, int sm_count) {
  const auto blocks = [&](const Config& v) { return (p.N + cta_cols(v) - 1) / cta_cols(v); };
  Config wide = c;
  wide.threads = 128, wide.ksplit = 4, wide.pdl = true;
  Config two_tiles = wide;
  two_tiles.cols = 32, two_tiles.unroll = 2;
  // The wave rule: two tiles a warp where their grid fills as much of its last wave as `c`'s (within 0.02 of a wave)
  // or more, each load of x then feeding twice the columns. `c` takes 120-128 registers, 16 warps an SM (2 CTAs of
  // 256, 4 of 128); two tiles 140-164 in CTAs of 128, 118-120 in CTAs of 160: 3 CTAs
  // (tests/families/gemv_gpu_test.cpp holds both counts to the kernels'). It decides for int4 at M <= 8, where x is
  // up to four times the weights' bytes, and for 16-bit and Q8_0 weights from M = 9, where x is as many bytes as the
  // weights or half; at M <= 8 16-bit weights lost with two tiles
  // even where the waves favoured them (dec_m4_12288 and dec_m8_12288 bf16, 28.8 against 27.3 us and 29.0 against
  // 27.6, results/decode-small-m-cols.json). What it chose, timed side by side with `c`:
  // - int4 at M <= 8, N = 12288 (384 blocks, 0.97 of one wave of 3 an SM, against 768 blocks, 0.73 of two waves of 4;
  //   results/decode-m1-int4-wide.json, decode-small-m-int4-wide.json): dec_m1_12288 11.5 against 12.3 us,
  //   dec_m4_12288 11.5 against 12.7, dec_m8_12288 12.2 against 16.1; it lost at N = 4096 and 14336, as the waves say;
  // - 16-bit and Q8_0 at M = 16, dec_m16_12288 (two tiles: 384 blocks, 0.97 of one wave; `c`: bf16 384 blocks, 0.73
  //   of two waves of 2, Q8_0 768 blocks of 16 columns, 0.97 of three): bf16 26.2 against 29.3 us, Q8_0 23.7 against
  //   27.1 (results/decode-m16-int8-wide.json). They lost where the waves say: d4k_qkv_dec bf16 22.1 against 17.5,
  //   Q8_0 19.8 against 18.8; d4k_ffn_dec 41.0 against 34.6 and 39.3 against 35.1; d8k_qkv_dec 80.1 against 67.1 and
  //   77.6 against 65.0.
  const bool sixteen_bit_or_q8 = weights == Format::bf16 || weights == Format::fp16 || weights == Format::q8_0;
  if ((weights == Format::int4_g128 && p.M <= 8) || (sixteen_bit_or_q8 && p.M > 8 && p.dtype != DType::fp8_e4m3)) {
    const double two = last_wave_fill(blocks(two_tiles), 3, sm_count);
    const double one = last_wave_fill(blocks(c), 16 / (c.threads / 32), sm_count);
    if (two + 0.02 < one) return c;
    // 16-bit weights, by M and x's layout (each setting timed side by side with the others;
    // results/decode-two-tile-rule-{bf16,fp16}.json, decode-two-tile-depth-{1,2}.json):
    // - M = 10..14 on K-major x (TN): the 4-warp kernels take 117-120 registers, so 4 CTAs fit an SM where this rule
    //   counts 3, and their 384 blocks spread unevenly. CTAs of 5 warps with K's steps taken in turns (interleave;
    //   every step whole 128-byte lines of each row) take 118-120, 3 an SM: dec_m12_12288 bf16 26.0 us against 29.5
    //   (30.1 with 4 warps interleaved), fp16 26.1 against 29.6.
    // - M = 16 on K-major x: the 4 warps with K in turns (150 registers where 140, 3 CTAs either way) ran 0.7-0.8%
    //   faster in three runs of six, even in two and 1% slower in one (dec_m16_12288 bf16 25.95 against 26.15 us,
    //   26.47 against 26.20; results/decode-gemv-interleave-m9-16-{bf16,fp16}.json too).
    // - M = 9 and 15 on K-major x: the 4-warp kernels take 142 registers, 3 CTAs an SM, and stay as they are: at
    //   M = 9 they ran 0.5-0.8% faster than 5 warps and than 4 interleaved (25.70 against 25.86 and 25.88 us).
    // - M-major x (NN): the 4-warp kernels take 115-118 registers from M = 10 to 16 (4 CTAs an SM) and 154 at M = 9;
    //   interleaved 4-warp CTAs were even at M = 16 (dec_m16_12288 NN bf16 32.0 against 32.1 us), so from M = 10
    //   they take 5 warps in turns as above (117-120 registers, 3 CTAs): dec_m16_12288 NN bf16 28.3 us against 32.5,
    //   fp16 28.4 against 32.4, where cuBLASLt takes 27.4 (results/decode-two-tile-nn-{bf16,fp16}.json).
    // Q8_0 was 46% slower interleaved (results/logs/gemv-interleave/).
    if (weights != Format::q8_0 && p.M > 8) {
      const bool four_fit = p.M >= 10 && (p.M <= 14 || p.layout == Layout::NN);  // 4-warp CTAs, 4 an SM
      if (four_fit) two_tiles.threads = 160, two_tiles.ksplit = 5;
      two_tiles.interleave = four_fit || (p.M == 16 && p.layout == Layout::TN);
    }
    return two_tiles;
  }
  if (p.M <= 8 || p.dtype == DType::fp8_e4m3) return c;
  // int4 and fp8 at M > 8: x is the larger part of what is read. The widest tile whose grid still gives each SM about
  // two blocks (1.9): int4 with one piece a row in flight (four tiles, 216 registers: d4k_ffn_dec 19.9 against 28.9
  // us, d8k_qkv_dec 37.8 against 57.8; two tiles, 158: dec_m16_12288 15.6 against 22.2, d4k_qkv_dec 13.1 against
  // 18.4), fp8 with two (two tiles: dec_m16_12288 19.0 against 25.1, d4k_ffn_dec 29.9 against 32.7, a tie on
  // d4k_qkv_dec and d8k_qkv_dec). On d4k_down_dec (N = 4096) each lost by half or more, as the rule says.
  for (int cols : weights == Format::int4_g128 ? std::vector<int>{64, 32} : std::vector<int>{32}) {
    wide.cols = cols, wide.unroll = weights == Format::int4_g128 ? 1 : 2;
    if (blocks(wide) * 10 >= 19 * int64_t(sm_count)) return wide;
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
  if (engine == Engine::bulk) {
    // Eight consumer warps on one tile, four units each a stage (2 KB of each row, 1 KB for Q8_0), four stages in
    // flight: about 135 KB of shared memory, one CTA an SM.
    c.cols = 16, c.ksplit = 8, c.unroll = 4, c.persistent = true, c.stages = 4;
    // Fewer units a stage rather than spill (M > 8 int4: four 16-byte loads of x a piece for each 8-token half).
    while (register_estimate(c) > register_limit(block_threads(c)) && c.unroll > 1) c.unroll /= 2;
    return c;
  }
  if (engine == Engine::mma) {
    // fp8 activations at M > 8 (two token halves, twice x's 16-byte pieces in flight): two pieces a row rather than
    // four, which leaves registers for two CTAs an SM (results/decode-gemv-fp8-settings.json, dec_m16_12288 fp8:
    // 17.6 against 22.9 us). The same for Q8_0 from M = 12, where four pieces took 125-130 registers (at M = 14 130:
    // one CTA of 256 an SM where the wave rule counts two; two pieces take 100-102): dec_m14_8192 18.9 against
    // 25.1 us, dec_m14_16384 35.3 against 47.7; M = 13 and 16 0.7-3% faster, M = 12 even; at M = 9 3% slower, so
    // below M = 12 four stay (results/decode-q8-one-tile.json).
    const bool two_pieces = (p.dtype == DType::fp8_e4m3 && p.M > 8) || (weights == Format::q8_0 && p.M >= 12);
    c.cols = 16, c.unroll = two_pieces ? 2 : 4;
  } else {
    // Bytes in flight per lane (16 * cols * unroll) against the registers M's accumulators take.
    c.cols = p.M > 8 ? 1 : 2;
    c.unroll = p.M > 4 && p.M <= 8 ? 2 : 4;
  }
  // At least four CTAs per SM, so the block scheduler can keep every SM streaming to the end: split K inside the CTA
  // when N alone gives too few.
  while ((p.N + cta_cols(c) - 1) / cta_cols(c) < 4 * int64_t(sm_count) && c.ksplit < c.threads / 32) c.ksplit *= 2;
  // The mma engine as the gemv campaign chose it on llm24's M = 16 shapes (results/tune/gemv-llm24-db.json), where
  // it was timed side by side with the rule above: launched as a programmatic dependent, with K cut over at most four
  // warps. 16-bit weights (results/llm24-gemv-mma-settings.json, decode-gemv-mma-settings.json): d4k_qkv_dec 17.7
  // against 20.9 us, d4k_ffn_dec 35.0 against 38.2, d8k_qkv_dec 66.7 against 71.4, dec_m16_12288 29.4 against 29.6,
  // dec_m4_12288 27.1 against 27.1; at K = 16384 four warps lost (42.2 against 37.1) and PDL alone won (36.2). int4
  // and fp8 weights at M = 16 (results/llm24-m16-gemv-cold-5.json): faster on all four wide shapes, K = 16384
  // included (int4 18.4 against 20.1 us on d4k_qkv_dec, fp8 29.3 against 31.3 on d4k_down_dec). Not Q8_0, which ran
  // 15-19% slower under it on the M = 16 shapes with K <= 8192 (results/llm24-m16-gemv-cold-4.json and
  // decode-gemv-cold-4.json against their -3 receipts, two runs), nor fp8 x.
  const bool sixteen_bit = weights == Format::bf16 || weights == Format::fp16;
  const bool chained = sixteen_bit || ((weights == Format::int4_g128 || weights == Format::fp8) && p.M > 8);
  if (engine == Engine::mma && p.dtype != DType::fp8_e4m3 && chained) {
    c.pdl = true;
    if (!sixteen_bit || p.K <= 8192) c.ksplit = std::min(c.ksplit, 4);
  }
  if (engine == Engine::mma && weights == Format::int4_g128 && (p.M <= 8 || p.N >= 12288)) {
    // int4 on the mma engine: one 16-column tile a CTA, K cut over all its warps, two pieces a row in flight (about
    // 120 registers at M <= 8: some 16 warps an SM), launched as a programmatic dependent; 8 warps a CTA while M <= 8
    // and the grid's warps fit one wave of those 16 an SM, else 4. Each part timed side by side with the rules above:
    // - M = 1, every decode shape but the largest, bf16 and fp16 x (results/decode-gemv-m1-int4-mma-bf16.json, -fp16):
    //   dec_m1_4096 5.2 against the fma kernel's 8.3 us, dec_m1_down 13.9 against 16.7, dec_m1_12288 12.2 against
    //   13.8, dec_m1_14336 14.0 against 15.4; dec_m1_8k (N = 28672) 47.0 against 46.9 in bf16, 47.2 against 48.8 in fp16;
    // - M = 2..8, all nine shapes of suites/decode-small-m.txt (results/decode-small-m-gemv.json): dec_m4_12288 12.6
    //   against 20.3 us, dec_m4_down 14.4 against 21.7, dec_m8_12288 16.2 against 19.7 (Q8_0 and fp8 weights in the
    //   same setting were slower or mixed);
    // - M = 9..16 from N = 12288 (results/llm24-m16-int4-tile.json, decode-m16-int4-tile.json): dec_m16_12288 22.3
    //   against 26.5 us, d4k_ffn_dec 28.9 against 34.7, d8k_qkv_dec 57.7 against 63.1; at N = 8192 and 4096 it lost.
    //   Where a wider tile's grid fills the GPU (widest_tiles) that tile is faster still.
    const bool one_wave = p.M <= 8 && (p.N + 15) / 16 * 8 <= 16 * int64_t(sm_count);
    c.threads = one_wave ? 256 : 128, c.ksplit = c.threads / 32, c.unroll = 2, c.pdl = true;
  }
  if (engine == Engine::mma) c = widest_tiles(c, p, weights, sm_count);
  // fp8 weights with fp8 x at M = 1: the weight loads ask L2 for 256 bytes at a time. A row's four lanes read 64 bytes
  // of it a load and the next three loads read the rest of those 256, so one request brings what four would: faster on
  // all four M = 1 shapes timed, twice (results/decode-fp8x-hints-{1,2}.json: dec_m1_12288 14.57 against 14.85 us,
  // dec_m1_8k 59.4 against 61.3; evict-first no faster). With a persistent grid as well it beat cuBLASLt on
  // dec_m1_12288 (14.24 against 14.43) but lost on dec_m1_14336 and dec_m1_8k, so the grid stays as it is.
  // Where K is cut over all the CTA's warps (one 16-column group), those warps take its steps in turns (interleave),
  // so the CTA reads one run of 2 KB of each row at a time: dec_m1_12288 14.38 against 14.53 us, dec_m1_14336 16.50
  // against 16.73, dec_m1_4096 even, dec_m1_down 16.63 against 16.53 (ranges overlapping;
  // results/decode-gemv-interleave-fp8x.json; twice before on the first two, results/logs/gemv-interleave/).
  // dec_m1_8k, K cut over 4 of 8 warps, was 1.4% slower with it.
  if (engine == Engine::mma && weights == Format::fp8 && p.dtype == DType::fp8_e4m3 && p.M == 1) {
    c.hint = Hint::prefetch_256;
    c.interleave = c.ksplit > 1 && c.ksplit == c.threads / 32;
  }
  if (engine == Engine::fma && p.M == 1) {
    // What measured faster than the rule above on both dec_m1_12288 and dec_m1_4096 (results/
    // decode-gemv-m1-settings.json). 16-bit and Q8_0 weights: two warps on each pair of columns, each streaming half
    // of K two chunks at a time (bf16 25.5 against 26.5 us and 9.6 against 10.7; Q8_0 16.7 against 16.8 and 8.2
    // against 9.0). int4: CTAs of 128 threads, whose dequantization keeps each warp busy longest (13.8 against 14.5
    // and 8.5 against 8.7). fp8 weights: no setting was faster on both.
    if (sixteen_bit || weights == Format::q8_0) {
      c.ksplit = 2, c.unroll = 2;
      // 16-bit weights with 16-bit x are launched as programmatic dependents: on every M = 1 decode shape, bf16 and
      // fp16, each launch's start overlapped the tail of the one before (results/decode-gemv-pdl-bf16.json, -fp16:
      // dec_m1_12288 23.6 against 25.5 us, dec_m1_4096 8.6 against 9.3, dec_m1_8k 102.9 against 107.6). Q8_0, int4
      // and fp8 weights, whose warps spend longer dequantizing, ran as fast or slower (results/decode-gemv-prefetch.json).
      c.pdl = sixteen_bit && p.dtype != DType::fp8_e4m3;
    } else if (weights == Format::int4_g128) {  // (the mma engine's default, above, measured faster still)
      c.threads = 128, c.ksplit = std::min(c.ksplit, 4);
    }
  }
  // A K split takes registers too: give up loads in flight rather than spill (M = 16 int4 on a narrow N).
  while (register_estimate(c) > register_limit(block_threads(c)) && c.unroll > 1) c.unroll /= 2;
  return c;
}

}  // namespace

Config default_config(const Problem& p, Format weights, int sm_count, std::optional<Engine> engine) {
  // At M = 1 the FMA kernel was as fast or faster, except with fp8 activations (results/decode-gemv-engines.json:
  // bf16 26.3 against 26.5 us, fp8 weights with bf16 x 16.2 against 17.6, fp8 with fp8 x 16.4 against 15.0 on
  // dec_m1_12288; results/decode-gemv-mma-cold.json: 11-13% behind the FMA kernel's 16-bit weights at K = 8192 and
  // 14336). From M = 2 the mma engine leads (dec_m4_12288 bf16 27.2 against 32.0 us, dec_m16_12288 29.6 against 112),
  // the group-scaled formats by more (results/decode-gemv-engines-pdl.json, dec_m16_12288: Q8_0 27.2 against 124.6 us,
  // int4 g128 28.7 against 217.6; at M = 1 the FMA kernel keeps them, 19.8 against 22.1 and 14.3 against 17.6).
  // Below one 16-column tile an SM (N < 16 x SMs) the mma engine leaves SMs idle, while the FMA kernel, one column
  // a warp and K split over the CTA, spreads over more of them: on llm24's M = 16 shapes with N = 16..128 the FMA
  // kernel took 3.4-5.4 us where the mma engine takes 5.1-11.1 (results/llm24-m16-gemv-cold.json against
  // results/llm24-m16-gemv-cold-2.json, two runs, cuBLASLt within 15% between them), and at N >= 4096 the mma engine
  // is 3.6-8.9x faster (the same receipts).
  // int4 g128 at M = 1 takes the mma engine too, in the setting above (default_on).
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
