#pragma once
// The vendor family, cuBLASLt, behind the families' interface (families/family.hpp): its own heuristic's choice
// (an empty configuration) is selection's floor, and its configuration space is tuned like ours.
#include <string_view>

#include "families/family.hpp"

namespace tilewise::cublaslt {

inline constexpr std::string_view kName = "cublaslt";

const families::Family& family();

}  // namespace tilewise::cublaslt
