// A plain read runs over each of its copies and is timed by the graph timer as the bench times it; a set outside
// its copies is refused by name.
#include <gtest/gtest.h>

#include "device/plain_read.hpp"
#include "expect_error.hpp"
#include "gpu.hpp"

namespace tilewise::device {
namespace {

using testkit::Contains;
using testkit::error_of;

TEST(PlainRead, ReadsEveryCopyAndRefusesOthers) {
  TW_REQUIRE_GPU();
  Stream s;
  int sms = 0;
  TW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // Not a multiple of 16: read in whole loads.
  const PlainRead read((26 << 20) + 8, 3, sms, s.get(), /*dependent=*/true);
  const Launch launch = read.launch();
  for (int set = 0; set < 3; ++set) launch(set, s.get());
  TW_CUDA(cudaStreamSynchronize(s.get()));
  EXPECT_TRUE(Contains(error_of([&] { launch(3, s.get()); }), "set 3 is outside 0..2"));
  GraphTimer timer(launch, 6, 3, s.get());
  EXPECT_GT(timer.measure(3), 0.0);
}

}  // namespace
}  // namespace tilewise::device
