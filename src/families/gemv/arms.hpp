#pragma once
#include <memory>
#include <string>
#include <vector>

#include "families/arm.hpp"

namespace tilewise::gemv {

// The decode GEMV arms (arms.cpp): "gemv" (the problem's own weights), "gemv:bf16", "gemv:fp16", "gemv:int8" (Q8_0),
// "gemv:int4" (int4 with group 128), "gemv:int4-g32", "gemv:fp8", each also with "@field=value;..." overrides.
// Returns null for any other name.
std::unique_ptr<families::Arm> make_arm(const std::string& name);
std::vector<std::string> arm_names();

}  // namespace tilewise::gemv
