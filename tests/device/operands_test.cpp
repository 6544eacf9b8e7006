// How many rotation sets a cold problem gets, and how many launches one measurement spans (no GPU needed).
#include <gtest/gtest.h>

#include "device/operands.hpp"
#include "device/timing.hpp"
#include "receipt/derive.hpp"

namespace tilewise::device {
namespace {

constexpr int64_t l2 = 60 * 1024 * 1024;

TEST(RotationSets, WarmUsesOneSet) {
  EXPECT_EQ(rotation_sets(make_problem("p", 16, 16, 4096, DType::bf16, Layout::TN), false, l2), 1);
}

TEST(RotationSets, ColdCoversFourTimesTheL2WithTheFewestSets) {
  for (const Problem& p : {make_problem("dec", 1, 12288, 4096, DType::bf16, Layout::TN),
                           make_problem("tiny", 16, 16, 4096, DType::fp8_e4m3, Layout::TN),
                           make_problem("big", 4096, 4096, 4096, DType::bf16, Layout::NN)}) {
    SCOPED_TRACE(p.name);
    const int sets = rotation_sets(p, true, l2);
    const int64_t set_bytes = receipt::rotation_set_bytes(p);
    EXPECT_GE(sets * set_bytes, cold_working_set_bytes(l2));
    if (sets > 1) EXPECT_LT((sets - 1) * set_bytes, cold_working_set_bytes(l2));
  }
  // The M=1 decode weights (100.7 MB a set) need three sets to pass 240 MiB.
  EXPECT_EQ(rotation_sets(make_problem("dec", 1, 12288, 4096, DType::bf16, Layout::TN), true, l2), 3);
}

TEST(LaunchesFor, SpansTheTargetInWholeRotations) {
  EXPECT_EQ(launches_for(10.0, 2.0, 1), 200);
  EXPECT_EQ(launches_for(3000.0, 2.0, 1), 1);
  EXPECT_EQ(launches_for(10.0, 2.0, 3), 201);  // rounded up to a multiple of the sets
  EXPECT_EQ(launches_for(1000.0, 2.0, 7), 7);   // at least one whole rotation
  EXPECT_EQ(launches_for(0.0, 2.0, 1), 4000);   // estimates under 0.5 us count as 0.5 us
  EXPECT_EQ(launches_for(0.001, 1000.0, 1), 20000);  // capped
}

}  // namespace
}  // namespace tilewise::device
