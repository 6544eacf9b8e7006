#pragma once
// A configuration as the tuner sees it, whatever the family: the family's canonical text "key=value,key=value,..."
// as ordered fields. The tuner never interprets a value; it only replaces the values of the fields a group opens, so
// the same descent tunes sm90 tiles, cuBLASLt algorithm ids and GEMV widths.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilewise::tune {

struct Config {
  std::vector<std::pair<std::string, std::string>> fields;  // in the family's canonical order
  bool operator==(const Config&) const = default;
};

// "block_m=128,block_n=256" -> {{block_m, 128}, {block_n, 256}}; throws Error on an item that is not key=value or a
// key given twice.
Config parse(std::string_view canonical);
std::string to_string(const Config& c);  // the canonical text again

const std::string* find(const Config& c, std::string_view key);

// `base` with the values `change` gives; a key `change` names that `base` does not have is an Error (a group that
// opens a field the family does not have is a bug in the family's space, not a candidate).
Config apply(Config base, const Config& change);
// The values `c` has for `keys`, in that order: the incumbent's alternative in a group.
Config project(const Config& c, const std::vector<std::string>& keys);

}  // namespace tilewise::tune
