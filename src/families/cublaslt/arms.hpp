#pragma once
#include <memory>
#include <string>
#include <vector>

#include "families/arm.hpp"

namespace tilewise::cublaslt {

// The vendor arms (arms.cpp): "cublaslt" (every heuristic candidate checked and timed, the fastest wins) and
// "cublaslt-default" (the heuristic's first candidate, what torch.mm runs). Null for any other name.
std::unique_ptr<families::Arm> make_arm(const std::string& name);
std::vector<std::string> arm_names();

}  // namespace tilewise::cublaslt
