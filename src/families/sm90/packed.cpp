#include "families/sm90/packed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "families/sm90/heuristic.hpp"
#include "kernels/sm90/packed_order.h"

namespace tilewise::sm90 {

namespace {

static_assert(int(Weights::q8_0) == int(gemv::Format::q8_0) && int(Weights::int4_g32) == int(gemv::Format::int4_g32) &&
              int(Weights::int4_g128) == int(gemv::Format::int4_g128) && int(Weights::fp8) == int(gemv::Format::fp8));

// The kernel's Weights for a packed format, valued as the gemv's format codes (kernels/sm90/codes.h); nothing for the
// 16-bit formats, which are not packed.
std::optional<Weights> weights_of(gemv::Format f) {
  if (f == gemv::Format::bf16 || f == gemv::Format::fp16) return std::nullopt;
  return Weights(int(f));
}

}  // namespace

Weights packed_weights(gemv::Format f) {
  if (std::optional<Weights> w = weights_of(f)) return *w;
  throw Unsupported(fmt::format("the sm90 kernel reads packed weights (int4g128, int4g32, q8_0, fp8), not {}",
                                gemv::to_string(f)));
}

std::optional<std::string> kernel_order_unsupported(const gemv::PackedLayout& l) {
  if (!weights_of(l.format))
    return fmt::format("{} weights have no sm90 kernel order (int4g128, int4g32, q8_0 and fp8 do)",
                       gemv::to_string(l.format));
  if (l.n % kernels::sm90::kPackedBlockRows != 0 || l.k % kernels::sm90::kPackedBlockK != 0)
    return fmt::format("{} weights of {} x {}: the sm90 kernel order takes N and K in whole blocks of 64",
                       gemv::to_string(l.format), l.n, l.k);
  return std::nullopt;
}

gemv::HostPacked to_kernel_order_cpu(const gemv::HostPacked& rows) {
  const gemv::PackedLayout& l = rows.layout;
  if (auto why = kernel_order_unsupported(l)) throw Unsupported(*why);
  gemv::HostPacked out{l, std::vector<uint8_t>(rows.q.size()), std::vector<uint8_t>(rows.scales.size())};
  const int K = int(l.k);
  const auto store = [&out](long long w, uint32_t word) {
    for (int b = 0; b < 4; ++b) out.q[size_t(w * 4 + b)] = uint8_t(word >> (8 * b));  // little-endian, as the GPU stores
  };
  if (kernels::sm90::packed_bytes(int(packed_weights(l.format)))) {  // a byte a value
    auto byte = [&](long long n, int k) { return rows.q[size_t(n * l.row_bytes + k)]; };
    for (long long w = 0; w < l.n * l.k / 4; ++w) store(w, kernels::sm90::packed_byte_word(w, K, byte));
    if (l.format == gemv::Format::fp8) {  // the row scales keep their order
      out.scales = rows.scales;
      return out;
    }
  } else {
    auto nibble = [&](long long n, int k) { return (rows.q[size_t(n * l.row_bytes + k / 2)] >> (4 * (k % 2))) & 0xF; };
    for (long long w = 0; w < l.n * l.k / 8; ++w) store(w, kernels::sm90::packed_word(w, K, nibble));
  }
  const int groups = int(l.k / gemv::group_size(l.format));
  const long long scales = l.n * groups;
  for (long long i = 0; i < scales; ++i) {
    const long long from = kernels::sm90::packed_scale_source(i, groups);
    out.scales[size_t(2 * i)] = rows.scales[size_t(2 * from)];
    out.scales[size_t(2 * i + 1)] = rows.scales[size_t(2 * from + 1)];
  }
  return out;
}

namespace {

// Up to 64 tokens the packed kernel streams its weights, and what it has in flight sets its speed: 256 weight rows on
// two consumers, the tokens' width rounded up to 8, the deepest of the feasible set's rings that fits (up to 16
// stages) and stream-K pieces that fill the SMs (at most 8 a tile). At 16-64 tokens on 12288 x 4096 and 28672 x 8192
// that ran 1.09-1.50x of cuBLASLt bf16 where the first rule's tile ran 0.80-1.06x; a third consumer (192 rows) was
// slower everywhere (docs/notes/2026-12-03-packed-small-batch.md). Past 64 tokens the rule's wider token tiles won.
constexpr int64_t kStreamingTokens = 64;

std::optional<Config> streaming_tile(const Problem& p, const Problem& view, const Limits& limits, Weights w,
                                     bool weights_as_a) {
  if (view.M > kStreamingTokens) return std::nullopt;
  Config c;
  c.block_m = int((view.M + 7) / 8 * 8), c.block_n = 256, c.consumers = 2, c.store = Store::direct;
  c.weights = w, c.swap = weights_as_a;
  const int64_t tiles = tile_count(view, c.block_m, c.block_n);
  c.split = int(std::clamp<int64_t>((limits.sm_count + tiles - 1) / tiles, 1, 8));
  return with_deepest_ring(c, p, ring_depths().back(), limits);
}

}  // namespace

// Up to 64 tokens the streaming tile above. Past it, the first rule's tile for the problem as the kernel sees it (the
// packed operand as B), with what packed weights allow (two consumers at most, no cluster or programmatic launch) and
// the deepest ring that fits the smaller packed stages (up to 8); with the packed weights as A (nn.Linear), the same
// tile with the operands swapped and a store that writes D transposed (below). From 256 tokens, where
// 256 x 128 tiles fill the SMs at least once, those: at 2048 tokens on three weight shapes they ran 0.98-1.01x of
// cuBLASLt bf16 in the run that compared tiles, where the first rule's 128 x 128 split 3 ran 0.65x on 12288 x 4096
// (docs/notes/2026-12-03-packed-sm90.md; three shapes only).
Config packed_rule(const Problem& p, const Limits& limits, Weights w, bool weights_as_a) {
  const Problem view = kernel_view(p, weights_as_a);  // B the packed weights, tokens as M
  if (std::optional<Config> streaming = streaming_tile(p, view, limits, w, weights_as_a)) return *streaming;
  RuleParams ladder;  // neither swapped tiles nor fitted widths, which packed weights were not measured with
  ladder.swapped_rate = ladder.fitted_rate = ladder.fitted_one_consumer_rate = 0.0;
  TileChoice t = choose_tile(view, limits, ladder);
  if (t.consumers == 3) t.block_n = 128, t.consumers = 2;
  if (view.M >= 256 && tile_count(view, 256, 128) >= limits.sm_count) t = TileChoice{256, 128, 2, 1};
  Config c;
  c.block_m = t.block_m, c.block_n = t.block_n, c.consumers = t.consumers, c.split = t.split;
  c.weights = w;
  c.swap = weights_as_a;
  std::string why;
  // The first of `stores` and the deepest ring (up to 8) that is feasible for `tile`, at its split and then unsplit.
  const auto first_feasible = [&](Config tile, const std::vector<Store>& stores) -> std::optional<Config> {
    for (int split : {tile.split, 1}) {
      tile.split = split;
      for (Store store : stores)
        for (int stages = 8; stages >= 2; --stages) {
          tile.store = store, tile.stages = stages;
          const std::optional<std::string> reason = infeasible(tile, p, limits);
          if (!reason) return tile;
          why = *reason;
        }
    }
    return std::nullopt;
  };
  if (!weights_as_a) {
    if (auto chosen = first_feasible(c, {Store::tma, Store::tma_ring, Store::direct})) return *chosen;
  } else {
    // Swapped operands store D transposed. Beside a consumer's full 128 accumulators the direct store's scattered
    // stores spill (feasibility.cpp), so there the tile keeps its width and stages D in shared memory, copied out in
    // whole lines of y; where that does not fit, a narrower width and the direct store.
    if (accumulator_registers(c) >= max_accumulators(c.consumers))
      if (auto chosen = first_feasible(c, {Store::staged})) return *chosen;
    while (accumulator_registers(c) >= max_accumulators(c.consumers) && c.block_m > 8)
      c.block_m = std::max(8, c.block_m / 16 * 8);
    if (auto chosen = first_feasible(c, {Store::direct})) return *chosen;
  }
  throw Unsupported(fmt::format("sm90 with {} weights on {}: {}", to_string(w), describe(p), why));
}

}  // namespace tilewise::sm90
