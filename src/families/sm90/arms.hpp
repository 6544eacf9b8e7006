#pragma once
#include <memory>
#include <string>
#include <vector>

#include "families/arm.hpp"

namespace tilewise::sm90 {

// The family's arms (arms.cpp): "sm90" (the first shape rule), "sm90:sweep" (the fastest of the rule's candidates)
// and "sm90:<config fields separated by ';'>"; null for any other name, Error for a bad configuration.
std::unique_ptr<families::Arm> make_arm(const std::string& name);
// The arms on packed int4 weights (packed_arms.cpp): "sm90:int4", "sm90:int4-g32", each with "@<fields>" optional.
std::vector<std::string> packed_arm_names();
std::unique_ptr<families::Arm> make_packed_arm(const std::string& name);

}  // namespace tilewise::sm90
