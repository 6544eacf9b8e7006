#pragma once
// A family-free search space for the tuner's tests: four groups over made-up fields, a tail field no group opens,
// a feasibility rule that couples two groups, and a seeded true latency with interactions between groups (so the
// descent is not trivially separable).
#include <fmt/format.h>

#include "scripted_measure.hpp"
#include "tune/space.hpp"

namespace tilewise::testkit {

inline tune::Config cfg(std::string_view text) { return tune::parse(text); }

inline tune::Group group(std::string name, std::vector<std::string> fields, std::vector<std::string> alternatives) {
  tune::Group g{std::move(name), std::move(fields), {}};
  for (const std::string& a : alternatives) g.alternatives.push_back(cfg(a));
  return g;
}

// tile=5 cannot run with split=4: a candidate of the split round may be infeasible beside the held tile.
inline tune::Tunable synthetic_tunable() {
  tune::Space s;
  s.groups = {group("tile", {"tile"}, {"tile=0", "tile=1", "tile=2", "tile=3", "tile=4", "tile=5"}),
              group("split", {"split", "red"},
                    {"split=1,red=a", "split=2,red=a", "split=2,red=b", "split=4,red=a", "split=4,red=b"}),
              group("mapping", {"map"}, {"map=0", "map=1", "map=2", "map=3", "map=4"}),
              group("widths", {"vw"}, {"vw=0", "vw=1", "vw=2"})};
  s.infeasible = [](const tune::Config& c) -> std::optional<std::string> {
    if (*tune::find(c, "tile") == "5" && *tune::find(c, "split") == "4") return "tile 5 cannot split by 4";
    return std::nullopt;
  };
  return {s, cfg("tile=2,split=1,red=a,map=0,vw=1,x=7")};
}

// 100 us times a factor in [0.7, 1.4] per field value, and one per (tile, split) pair.
inline std::function<double(const tune::Config&)> synthetic_truth(uint64_t seed) {
  return [seed](const tune::Config& c) {
    double us = 100;
    for (const auto& [k, v] : c.fields) us *= 0.7 + 0.7 * unit(hash(seed, k + "=" + v));
    us *= 0.7 + 0.7 * unit(hash(seed, "pair " + *tune::find(c, "tile") + " " + *tune::find(c, "split")));
    return us;
  };
}

// `n` cases of the synthetic family, "case0", "case1", ..., on problems of growing M.
inline std::vector<tune::Case> synthetic_cases(int n) {
  std::vector<tune::Case> out;
  for (int i = 0; i < n; ++i)
    out.push_back({fmt::format("case{}", i), "synthetic",
                   make_problem(fmt::format("p{}", i), 256 << i, 512, 1024, DType::bf16, Layout::TN)});
  return out;
}

}  // namespace tilewise::testkit
