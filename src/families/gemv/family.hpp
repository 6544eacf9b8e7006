#pragma once
// The decode GEMV family behind the families' interface (families/family.hpp), as tilewise::gemm runs it: the
// problem's own weights, its tokens as M or, in nn.Linear's orientation, as N (families/gemv/view.hpp).
#include <string_view>

#include "families/family.hpp"

namespace tilewise::gemv {

inline constexpr std::string_view kName = "gemv";

const families::Family& family();

}  // namespace tilewise::gemv
