#include "tune/grid.hpp"

#include <fmt/format.h>

#include <chrono>
#include <numeric>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

// A permutation of [0, n) that needs no table: i -> (a i + b) mod n with a coprime to n. Not random in any strong
// sense, but it spreads a capped walk over the whole product instead of its first corner.
struct Walk {
  uint64_t n, a, b;
  Walk(uint64_t n, uint64_t seed) : n(n), a(1), b(0) {
    if (n < 2) return;
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    x ^= x >> 31;
    a = x % n | 1;
    while (std::gcd(a, n) != 1) a = (a + 2) % n;
    b = (x >> 17) % n;
  }
  uint64_t operator()(uint64_t i) const {
    return uint64_t((unsigned __int128)(a) * i % n + b) % n;
  }
};

}  // namespace

Config grid_point(const Space& s, const Config& base, uint64_t i) {
  Config c = base;
  for (size_t g = s.groups.size(); g-- > 0;) {
    const Group& group = s.groups[g];
    if (group.alternatives.empty()) continue;
    c = apply(std::move(c), group.alternatives[i % group.alternatives.size()]);
    i /= group.alternatives.size();
  }
  return c;
}

void grid(CaseResult& state, const Tunable& t, Measure& measure, const GridOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t n = product_size(t.space);
  const Walk walk(n, options.seed);
  Round round;
  round.group = "grid";
  std::vector<Config> configs;
  for (uint64_t i = 0; i < n && int(configs.size()) < options.cap; ++i) {
    const Config c = grid_point(t.space, t.warm_start, walk(i));
    round.enumerated += 1;
    if (t.space.infeasible && t.space.infeasible(c)) {
      round.infeasible += 1;
      continue;
    }
    configs.push_back(c);
  }
  round.legal = int(configs.size());
  const std::vector<Timing> timings = configs.empty() ? std::vector<Timing>{} : measure.measure(state.c, configs);
  if (timings.size() != configs.size())
    throw Error(fmt::format("{}: the measurement returned {} timings for {} candidates", state.c.id, timings.size(),
                            configs.size()));
  std::optional<size_t> best;
  for (size_t i = 0; i < timings.size(); ++i) {
    round.compiled += timings[i].compiled;
    if (timings[i].us.empty()) continue;
    round.timed += 1;
    round.dropped += timings[i].dropped;
    if (timings[i].dropped) continue;
    if (!best || receipt::median(timings[i].us) < receipt::median(timings[*best].us)) best = i;
  }
  if (!best) throw Error(fmt::format("{}: the grid timed none of its {} legal candidates", state.c.id, configs.size()));
  round.winner = to_string(configs[*best]);
  round.winner_us = timings[*best].us;
  round.adopted = true;
  round.latency_us = receipt::median(round.winner_us);
  round.incumbent = state.warm_start;
  round.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  state.best = round.winner;
  state.best_us = round.latency_us;
  state.rounds = {std::move(round)};
  state.status = Status::finished;
}

}  // namespace tilewise::tune
