#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/arm.hpp"

namespace tilewise::bench {

// The decode GEMV arms (bench/gemv_arms.cpp): "gemv:bf16", "gemv:fp16", "gemv:int8" (Q8_0), "gemv:int4" (int4 with
// group 128), "gemv:int4-g32", "gemv:fp8". Returns null for any other name.
std::unique_ptr<Arm> make_gemv_arm(const std::string& name);
std::vector<std::string> gemv_arm_names();

}  // namespace tilewise::bench
