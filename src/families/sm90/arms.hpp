#pragma once
#include <memory>
#include <string>

#include "families/arm.hpp"

namespace tilewise::sm90 {

// The family's arms (arms.cpp): "sm90" (the first shape rule), "sm90:sweep" (the fastest of the rule's candidates)
// and "sm90:<config fields separated by ';'>"; null for any other name, Error for a bad configuration.
std::unique_ptr<families::Arm> make_arm(const std::string& name);

}  // namespace tilewise::sm90
