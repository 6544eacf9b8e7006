#include "families/sm90/tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::sm90 {

using families::Fields;
using families::Group;

namespace {

const Group kGroups[] = {
    {"tile", {"block_m", "block_n", "consumers", "schedule", "swap"}},
    {"pipeline", {"stages", "store"}},
    {"mapping", {"raster", "group", "cluster"}},
    {"split", {"split"}},
    {"launch", {"pdl"}},
};

// Every multiple of 8 is a width, but the tile round compiles each candidate: past the widths it always held, a
// width earns a place there only by fitting the kernel's M (the problem's N when swapped) in one to eight tiles,
// which is what the first rule's swapped rungs take (heuristic.cpp).
constexpr int kRoundWidths[] = {8, 16, 32, 48, 64, 80, 96, 128, 160, 192, 224, 256};
constexpr int64_t kMostFittedTiles = 8;

// A tile wider than the narrowest of those widths covering the kernel's M only multiplies rows that do not exist (TMA
// fills them with zeros): decode-like shapes would spend most of their tile round compiling such waste. The cover is
// taken from the round's widths, as the first rule's are, so the rule's own tile is always in the round.
int covering_block_m(const std::vector<Config>& feasible, const Problem& p, bool swapped) {
  int cover = 0;
  for (const Config& c : feasible) {
    const bool round_width =
        std::find(std::begin(kRoundWidths), std::end(kRoundWidths), c.block_m) != std::end(kRoundWidths);
    if (c.swap == swapped && round_width && c.block_m >= kernel_view(p, c).M && (cover == 0 || c.block_m < cover))
      cover = c.block_m;
  }
  return cover;  // 0: no width covers M, every width is useful
}

bool in_tile_round(const Config& c, const Problem& p) {
  if (c.swap && p.M < 64) return false;  // swapped, M runs along 64-row tiles: under 64 they multiply empty rows
  if (std::find(std::begin(kRoundWidths), std::end(kRoundWidths), c.block_m) != std::end(kRoundWidths)) return true;
  const int64_t m = kernel_view(p, c).M;
  for (int64_t tiles = 1; tiles <= kMostFittedTiles; ++tiles)
    if (c.block_m == ((m + tiles - 1) / tiles + 7) / 8 * 8) return true;
  return false;
}

// The tile round's candidates keep the incumbent's ring depth, which a larger tile often cannot fit beside: keep the
// tile and its mapping, and take the deepest ring that fits, much as the first rule does: the TMA store while it
// still leaves four stages (or the incumbent's depth, where that is less), then the ring store, then the staged store
// (which the rule does not take), then the direct store. The pipeline round then tunes the depth. A schedule
// stream-K cannot run (ping-pong, clusters) gets whole tiles.
std::optional<Config> fit(Config c, const Problem& p, const Limits& limits) {
  const int deepest = c.stages;
  for (int split : {c.split, 1})
    for (Store store : {c.store, Store::tma_ring, Store::staged, Store::direct})
      for (int stages = deepest; stages >= 2; --stages) {
        c.split = split;
        c.store = store;
        c.stages = stages;
        if (!infeasible(c, p, limits) && (store == Store::direct || stages >= std::min(4, deepest)))
          return c;
      }
  return std::nullopt;
}

}  // namespace

Fields tuner_fields(const Config& c) {
  Fields t = families::parse_fields(to_string(c));
  std::erase_if(t.fields, [](const auto& kv) { return kv.first == "swap" || kv.first == "pdl"; });
  t.fields.emplace_back("swap", c.swap ? "1" : "0");
  t.fields.emplace_back("pdl", c.pdl ? "1" : "0");
  return t;
}
Config from_fields(const Fields& f) { return parse_config(to_string(f)); }

families::Space space(const Problem& p, const Limits& limits) {
  const std::vector<Config> feasible = feasible_set(p, limits);
  if (feasible.empty()) {
    require_tma_expressible(p);
    throw Unsupported(fmt::format("sm90: no feasible configuration for {}", describe(p)));
  }
  const int cover[2] = {covering_block_m(feasible, p, false), covering_block_m(feasible, p, true)};
  // The rule's own tile is always in the round (its ladder's 192 is wider than M = 142's cover of 160).
  std::optional<Config> rule;
  try {
    rule = first_rule(p, limits);
  } catch (const Unsupported&) {
  }
  const auto rules_tile = [&](const Config& c) {
    return rule && c.block_m == rule->block_m && c.block_n == rule->block_n && c.consumers == rule->consumers &&
           c.schedule == rule->schedule && c.swap == rule->swap;
  };
  std::vector<Fields> all, covering;
  for (const Config& c : feasible) {
    all.push_back(tuner_fields(c));
    if (((cover[c.swap] == 0 || c.block_m <= cover[c.swap]) && in_tile_round(c, p)) || rules_tile(c))
      covering.push_back(all.back());
  }
  families::Space s;
  for (const Group& g : kGroups) s.groups.push_back(with_alternatives(g, g.name == "tile" ? covering : all));
  s.infeasible = [p, limits](const Fields& c) { return infeasible(from_fields(c), p, limits); };
  s.fit = [p, limits](const Fields& c, const std::vector<std::string>&) -> std::optional<Fields> {
    const auto fitted = fit(from_fields(c), p, limits);
    if (!fitted) return std::nullopt;
    return tuner_fields(*fitted);
  };
  return s;
}

families::Tunable tunable(const Problem& p, const Limits& limits, const std::optional<Config>& start) {
  return families::Tunable{space(p, limits), tuner_fields(start ? *start : first_rule(p, limits))};
}

}  // namespace tilewise::sm90
