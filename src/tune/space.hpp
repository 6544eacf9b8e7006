#pragma once
// What the tuner does with a family's search space (families/space.hpp): a round's candidates, fields held at the
// warm start, the space checked, fingerprinted and sized.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "families/space.hpp"
#include "tune/config.hpp"

namespace tilewise::tune {

using families::Feasibility;
using families::Fit;
using families::Group;
using families::Space;
using families::Tunable;
using families::with_alternatives;

// `t` with `fields` held at its warm start's values: alternatives that would set one of them to another value are
// dropped, and a fit that would move one is refused, so the descent moves along the other fields only: for a start
// whose neighbours the timing cannot judge (docs/notes/2026-12-03-family-rules.md, "Holding fields"). Throws Error
// naming a field the start lacks.
Tunable hold(Tunable t, const std::vector<std::string>& fields);
// The check hold makes of the field names against a family's (families::Family::field_names), for a command line to
// refuse them before any GPU work.
void check_held(const std::vector<std::string>& known, const std::vector<std::string>& fields);

struct Candidates {
  std::vector<Config> configs;  // the incumbent first, then the legal alternatives, no duplicates
  int enumerated = 0;           // distinct alternatives asked for, the incumbent's own value included
  int infeasible = 0;           // dropped by the feasibility rule
  int refitted = 0;             // infeasible as asked, kept in the form the space's fit gave (counted in configs)
};

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
