#pragma once
// A search space as the tuner takes it from a family, for one problem: ordered groups of parameters, one round each,
// in order of impact; each group a list of alternative values for the fields it opens. Plus the feasibility rule,
// which filters whole candidates (a tile that fits with four stages may not fit with the incumbent's eight).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tune/config.hpp"

namespace tilewise::tune {

struct Group {
  std::string name;                  // "tile", "pipeline", "mapping"
  std::vector<std::string> fields;   // the fields this group opens
  std::vector<Config> alternatives;  // each sets exactly `fields`
};

// Why a candidate cannot run this problem, or nothing when it can.
using Feasibility = std::function<std::optional<std::string>(const Config&)>;
// A feasible configuration close to an infeasible candidate that keeps its values of `opened` (the fields of the round
// that asked), or nothing. Fields that trade against each other for one resource sit in different groups (a tile and
// the ring depth share shared memory): without this, a larger tile is judged beside the incumbent's deep ring, does
// not fit, and the tile round never sees it.
using Fit = std::function<std::optional<Config>(const Config& candidate, const std::vector<std::string>& opened)>;

struct Space {
  std::vector<Group> groups;        // in order of impact
  Feasibility infeasible;           // empty: every candidate is legal
  Fit fit;                          // empty: an infeasible candidate is dropped
  std::vector<std::string> held;    // fields kept at the warm start's values (hold, below)
};

// What a family hands the tuner for one problem.
struct Tunable {
  Space space;
  Config warm_start;  // a configuration already trusted (the heuristic's choice, or one given), round 0 of the descent
};

// `t` with `fields` held at its warm start's values: alternatives that would set one of them to another value are
// dropped, and a fit that would move one is refused, so the descent moves along the other fields only. For a start
// whose neighbours the timing cannot judge: sn_64_pf's swapped 32-column tiles ran 12.6 us in some rounds and 16 in
// others (results/logs/issue7-sn64-pingpong/NOTES.md). Throws Error naming a field the start lacks.
Tunable hold(Tunable t, const std::vector<std::string>& fields);
// The same check hold makes of the field names, for a command line to refuse them before any GPU work.
void check_held(const Config& warm_start, const std::vector<std::string>& fields);

struct Candidates {
  std::vector<Config> configs;  // the incumbent first, then the legal alternatives, no duplicates
  int enumerated = 0;           // distinct alternatives asked for, the incumbent's own value included
  int infeasible = 0;           // dropped by the feasibility rule
  int refitted = 0;             // infeasible as asked, kept in the form the space's fit gave (counted in configs)
};

// `g` with the distinct values `feasible` has for its fields as its alternatives, in the order first seen: a family's
// groups read off its feasible set.
Group with_alternatives(Group g, const std::vector<Config>& feasible);

// One round's candidate list: the group's alternatives applied to the incumbent, unioned with the incumbent itself.
// The incumbent is never filtered (it has already run), so the round can always hold where it is. An infeasible
// candidate is replaced by its fit when the fit keeps the group's values, is feasible and is not listed already.
Candidates candidates(const Group& g, const Config& incumbent, const Feasibility& infeasible, const Fit& fit = {});

// Checks a space against its warm start: every alternative sets exactly its group's fields, and those fields exist
// in the warm start. Throws Error naming the group; a malformed space is a bug in the family, found before timing.
void check_space(const Space& s, const Config& warm_start);

// A stable fingerprint of the groups and their alternatives (FNV-1a over the canonical text), recorded in a campaign
// so that resuming under a different space is refused instead of silently mixing two searches.
std::string digest(const Space& s);

// The number of points in the product of every group's alternatives: the one-shot grid's size before its cap.
uint64_t product_size(const Space& s);

}  // namespace tilewise::tune
