#pragma once
// What a search space's group offers, set beside what its fields take across a family's feasible set, for the checks
// every family's space makes: the groups list exactly the feasible set's values, each once.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tune/space.hpp"

namespace tilewise::testkit {

struct GroupValues {
  std::set<std::string> listed;       // the group's alternatives, as text
  std::set<std::string> in_feasible;  // the group's fields projected from every feasible configuration
};

// Also checks that the group lists no alternative twice.
inline GroupValues group_values(const tune::Group& g, const std::vector<tune::Config>& feasible, const std::string& where) {
  GroupValues v;
  for (const tune::Config& c : feasible) v.in_feasible.insert(tune::to_string(tune::project(c, g.fields)));
  for (const tune::Config& alt : g.alternatives) v.listed.insert(tune::to_string(alt));
  EXPECT_EQ(v.listed.size(), g.alternatives.size()) << where << " " << g.name << ": no duplicates";
  return v;
}

}  // namespace tilewise::testkit
