#pragma once
// Sizes computed from input (a suite line, a weight file's header, a command line's shape) in 64-bit arithmetic that
// refuses to wrap: a product past 2^63 is an Error naming what was being computed, never a negative or tiny size
// that a later allocation or loop trusts.
#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "core/error.hpp"

namespace tilewise {

// The product of `factors`; throws Error "<what> overflows 64 bits" when it does not fit in int64_t.
inline int64_t checked_product(std::initializer_list<int64_t> factors, std::string_view what) {
  int64_t r = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(r, f, &r)) throw Error(fmt::format("{} overflows 64 bits", what));
  return r;
}

// The sum of `terms`, checked in the same way.
inline int64_t checked_sum(std::initializer_list<int64_t> terms, std::string_view what) {
  int64_t r = 0;
  for (int64_t t : terms)
    if (__builtin_add_overflow(r, t, &r)) throw Error(fmt::format("{} overflows 64 bits", what));
  return r;
}

}  // namespace tilewise
