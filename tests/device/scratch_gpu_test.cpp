// device::StreamScratch: it grows by at least doubling, keeps the buffers it gave out, and hands out zeroed flags.
#include "device/scratch.hpp"

#include <gtest/gtest.h>

#include "gpu.hpp"

namespace tilewise {
namespace {

TEST(StreamScratch, GrowsByDoublingKeepsWhatItGaveAndZeroesItsFlags) {
  TW_REQUIRE_GPU();
  device::StreamScratch s;
  EXPECT_EQ(s.bytes_held(), 0u);
  const device::StreamScratch::Slots small = s.reserve(1000, 10);
  EXPECT_EQ(s.bytes_held(), 1000 * sizeof(float) + 10 * sizeof(int));
  EXPECT_EQ(s.reserve(500, 5).partials, small.partials) << "a smaller reservation takes what is held";
  const device::StreamScratch::Slots big = s.reserve(1500, 40);
  EXPECT_NE(big.partials, small.partials);
  EXPECT_NE(big.flags, small.flags);
  // 1000 floats, then max(1500, 2000); 10 ints, then max(40, 20): the old buffers stay.
  EXPECT_EQ(s.bytes_held(), (1000 + 2000) * sizeof(float) + (10 + 40) * sizeof(int));
  for (const int flag : testkit::download<int>(big.flags, 40)) EXPECT_EQ(flag, 0);
  for (const int flag : testkit::download<int>(small.flags, 10)) EXPECT_EQ(flag, 0);
}

}  // namespace
}  // namespace tilewise
