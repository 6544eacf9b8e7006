#pragma once
// The sm90 GEMM family behind the families' interface (families/family.hpp).
#include <string_view>

#include "families/family.hpp"

namespace tilewise::sm90 {

inline constexpr std::string_view kName = "sm90";

const families::Family& family();

}  // namespace tilewise::sm90
