#pragma once
// A family's real search space, descended with a made-up latency (a hash of each configuration's text): what every
// family's space must give the tuner, whatever the timing says.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "scripted_measure.hpp"
#include "tune/descent.hpp"
#include "tune/space.hpp"

namespace tilewise::testkit {

// Every round's list leads with the incumbent, every candidate timed passes `feasible`, and the descent ends no slower
// than its warm start.
inline void expect_descent_times_only_feasible(const Problem& p, const std::string& family, const tune::Tunable& t,
                                               uint64_t seed, double base_us,
                                               const std::function<bool(const tune::Config&)>& feasible) {
  ScriptedMeasure m;
  m.seed = seed;
  m.truth = [seed, base_us](const tune::Config& c) {
    return base_us + double(hash(seed, tune::to_string(c)) % 1000) * base_us / 1000;
  };
  const tune::Case c{p.name, family, p};
  tune::CaseResult r = tune::start_case(c, t, "descent");
  tune::descend(r, t, m);
  ASSERT_TRUE(rounds_are_groups_then_confirm(r, t.space.groups.size()));
  for (size_t i = 0; i < m.asked.size(); ++i) {
    EXPECT_EQ(tune::to_string(m.asked[i][0]), r.rounds[i].incumbent);
    for (const tune::Config& cand : m.asked[i]) EXPECT_TRUE(feasible(cand)) << tune::to_string(cand);
  }
  EXPECT_LE(m.truth(tune::parse(r.best)), m.truth(t.warm_start)) << describe(p);
}

}  // namespace tilewise::testkit
