#pragma once
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "families/arm.hpp"
#include "families/gemv/config.hpp"
#include "families/sm90/config.hpp"

namespace tilewise::sm90 {

// The family's arms (arms.cpp): "sm90" (the first shape rule), "sm90@<fields separated by ';'>" (laid over the rule's
// choice), "sm90:sweep" (the fastest of the rule's candidates) and "sm90:<config fields separated by ';'>"; null for
// any other name, Error for a bad configuration.
std::unique_ptr<families::Arm> make_arm(const std::string& name);
// `base` with an arm's fields (separated by ';') in place of its own: Error naming the arm where they do not parse.
Config with_overrides(const Config& base, const std::string& overrides, const std::string& arm);
// The arms on packed weights (packed_arms.cpp), each with "@<fields>" optional, and the format each packs:
// "sm90:int4" (int4 g128), "sm90:int4-g32", "sm90:int8" (Q8_0) and "sm90:fp8".
std::span<const std::pair<const char*, gemv::Format>> packed_arms();
std::vector<std::string> packed_arm_names();
std::unique_ptr<families::Arm> make_packed_arm(const std::string& name);

}  // namespace tilewise::sm90
