#pragma once
// Every kernel family, in one place: the one registry selection, the tuner, the harness and the command line ask
// for a family by name. A new family is a folder beside src/families/sm90 implementing families/family.hpp and one
// line in registry.cpp.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace tilewise::families {

// In a fixed order: where families tie, the earlier is listed first.
const std::vector<const Family*>& all_families();
std::vector<std::string> family_names();
// The family named `name`, or null.
const Family* find_family(std::string_view name);
// The family named `name`; Error naming it and the known ones otherwise.
const Family& family(std::string_view name);

// The vendor's family (cuBLASLt): selection's floor and first-use tuning's incumbent, its heuristic's own choice
// named by an empty configuration.
const Family& vendor_family();

// Each of our families' arm that runs its own rule in a sweep receipt (the arm named as the family), by family: what
// the floor weighs against the vendor's default (select/floor.hpp).
std::map<std::string, std::string> rule_arms();

// `text` as `family`'s canonical configuration: an Error naming the family, or the field and the value, where it is
// not one. The entry point for fuzzing the configuration parsers.
std::string parse_config(std::string_view family, std::string_view text);

}  // namespace tilewise::families
