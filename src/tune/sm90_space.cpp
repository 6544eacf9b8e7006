#include "tune/sm90_space.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::tune {

namespace {

const Group kGroups[] = {
    {"tile", {"block_m", "block_n", "consumers", "schedule", "swap"}},
    {"pipeline", {"stages", "store"}},
    {"mapping", {"raster", "group", "cluster"}},
    {"split", {"split"}},
    {"launch", {"pdl"}},
};

// A tile wider than the narrowest feasible width covering M only multiplies rows that do not exist (TMA fills them
// with zeros): decode-like shapes would spend most of their tile round compiling such waste.
int covering_block_m(const std::vector<sm90::Config>& feasible, int64_t M) {
  int cover = 0;
  for (const sm90::Config& c : feasible)
    if (c.block_m >= M && (cover == 0 || c.block_m < cover)) cover = c.block_m;
  return cover;  // 0: no width covers M, every width is useful
}

// The tile round's candidates keep the incumbent's ring depth, which a larger tile often cannot fit beside: keep the
// tile and its mapping, and take the deepest ring that fits, much as the first rule does: the TMA store while it
// still leaves four stages (or the incumbent's depth, where that is less), then the ring store, then the staged store
// (which the rule does not take), then the direct store. The pipeline round then tunes the depth. A schedule
// stream-K cannot run (ping-pong, clusters) gets whole tiles.
std::optional<sm90::Config> fit(sm90::Config c, const Problem& p, const sm90::Limits& limits) {
  const int deepest = c.stages;
  for (int split : {c.split, 1})
    for (sm90::Store store : {c.store, sm90::Store::tma_ring, sm90::Store::staged, sm90::Store::direct})
      for (int stages = deepest; stages >= 2; --stages) {
        c.split = split;
        c.store = store;
        c.stages = stages;
        if (!sm90::infeasible(c, p, limits) && (store == sm90::Store::direct || stages >= std::min(4, deepest)))
          return c;
      }
  return std::nullopt;
}

}  // namespace

Config to_tune(const sm90::Config& c) {
  Config t = parse(sm90::to_string(c));
  std::erase_if(t.fields, [](const auto& kv) { return kv.first == "swap" || kv.first == "pdl"; });
  t.fields.emplace_back("swap", c.swap ? "1" : "0");
  t.fields.emplace_back("pdl", c.pdl ? "1" : "0");
  return t;
}
sm90::Config to_sm90(const Config& c) { return sm90::parse_config(to_string(c)); }

Space sm90_space(const Problem& p, const sm90::Limits& limits) {
  const std::vector<sm90::Config> feasible = sm90::feasible_set(p, limits);
  if (feasible.empty()) {
    sm90::require_tma_expressible(p);
    throw Unsupported(fmt::format("sm90: no feasible configuration for {}", describe(p)));
  }
  const int cover = covering_block_m(feasible, p.M);
  std::vector<Config> all, covering;
  for (const sm90::Config& c : feasible) {
    all.push_back(to_tune(c));
    if (cover == 0 || c.block_m <= cover) covering.push_back(all.back());
  }
  Space s;
  for (const Group& g : kGroups) s.groups.push_back(with_alternatives(g, g.name == "tile" ? covering : all));
  s.infeasible = [p, limits](const Config& c) { return sm90::infeasible(to_sm90(c), p, limits); };
  s.fit = [p, limits](const Config& c, const std::vector<std::string>&) -> std::optional<Config> {
    const auto fitted = fit(to_sm90(c), p, limits);
    if (!fitted) return std::nullopt;
    return to_tune(*fitted);
  };
  return s;
}

Tunable sm90_tunable(const Problem& p, const sm90::Limits& limits, const std::optional<sm90::Config>& start) {
  return Tunable{sm90_space(p, limits), to_tune(start ? *start : sm90::first_rule(p, limits))};
}

}  // namespace tilewise::tune
