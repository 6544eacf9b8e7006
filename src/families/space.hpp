#pragma once
// A family's parameters as a search space for one problem, what it hands the tuner (src/tune/): ordered groups of
// fields, one round each, in order of impact; each group a list of alternative values for the fields it opens. Plus
// the feasibility rule, which filters whole candidates (a tile that fits with four stages may not fit with the
// incumbent's eight).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "families/fields.hpp"

namespace tilewise::families {

struct Group {
  std::string name;                  // "tile", "pipeline", "mapping"
  std::vector<std::string> fields;   // the fields this group opens
  std::vector<Fields> alternatives;  // each sets exactly `fields`
};

// Why a candidate cannot run this problem, or nothing when it can.
using Feasibility = std::function<std::optional<std::string>(const Fields&)>;
// A feasible configuration close to an infeasible candidate that keeps its values of `opened` (the fields of the round
// that asked), or nothing. Fields that trade against each other for one resource sit in different groups (a tile and
// the ring depth share shared memory): without this, a larger tile is judged beside the incumbent's deep ring, does
// not fit, and the tile round never sees it.
using Fit = std::function<std::optional<Fields>(const Fields& candidate, const std::vector<std::string>& opened)>;

struct Space {
  std::vector<Group> groups;        // in order of impact
  Feasibility infeasible;           // empty: every candidate is legal
  Fit fit;                          // empty: an infeasible candidate is dropped
  std::vector<std::string> held;    // fields kept at the warm start's values (tune::hold)
};

// What a family hands the tuner for one problem.
struct Tunable {
  Space space;
  Fields warm_start;  // a configuration already trusted (the family's rule, or one given), round 0 of the descent
};

// `g` with the distinct values `feasible` has for its fields as its alternatives, in the order first seen: a family's
// groups read off its feasible set.
Group with_alternatives(Group g, const std::vector<Fields>& feasible);

}  // namespace tilewise::families
