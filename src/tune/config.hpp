#pragma once
// A configuration as the tuner sees it, whatever the family: the family's text as ordered fields
// (families/fields.hpp). The tuner never interprets a value; it only replaces the values of the fields a group
// opens, so the same descent tunes sm90 tiles, cuBLASLt algorithm ids and GEMV widths.
#include <string_view>

#include "families/fields.hpp"

namespace tilewise::tune {

using Config = families::Fields;
using families::apply;
using families::find;
using families::keys;
using families::project;
using families::to_string;

// "block_m=128,block_n=256" -> {{block_m, 128}, {block_n, 256}}; throws Error on an item that is not key=value or a
// key given twice.
inline Config parse(std::string_view canonical) { return families::parse_fields(canonical); }

}  // namespace tilewise::tune
