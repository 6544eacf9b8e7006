// A plain read refuses a size or a set count it cannot read, before it allocates anything.
#include <gtest/gtest.h>

#include "device/plain_read.hpp"
#include "expect_error.hpp"

namespace tilewise::device {
namespace {

using testkit::Contains;
using testkit::error_of;

TEST(PlainRead, RefusesNoBytesAndNoSets) {
  EXPECT_TRUE(Contains(error_of([&] { PlainRead(0, 3, 132, nullptr, true); }), "size must be positive"));
  EXPECT_TRUE(Contains(error_of([&] { PlainRead(-16, 3, 132, nullptr, true); }), "size must be positive"));
  EXPECT_TRUE(Contains(error_of([&] { PlainRead(1 << 20, 0, 132, nullptr, true); }), "at least one is needed"));
}

}  // namespace
}  // namespace tilewise::device
