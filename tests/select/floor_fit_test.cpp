// Judging a fitted floor: the judged half must be other problems than the fitted half, whatever their files or names.
#include "select/floor_fit.hpp"

#include <gtest/gtest.h>

#include "sample_floor.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

// A copy of the fitted receipt passed as the judged half was scored as "judged on N others".
TEST(FloorFit, SharedProblemsAreFoundByWhatTheyAreNotByName) {
  const std::vector<FloorPoint> fitted = testkit::sample_floor().points;
  EXPECT_EQ(shared_problems(fitted, fitted).size(), fitted.size());

  std::vector<FloorPoint> judged;
  FloorPoint renamed = fitted[2];
  renamed.problem.name = "another name";
  judged.push_back(renamed);  // one GEMM under another name: shared
  FloorPoint padded = fitted[0];
  padded.problem = make_problem("", 4096, 4096, 4096, DType::bf16, Layout::TN, 8);  // other strides: another problem
  judged.push_back(padded);
  judged.push_back(testkit::point(problem(4096, 4096, 4096, DType::fp16), {}));    // another dtype
  judged.push_back(testkit::point(problem(4096, 4096, 4096, DType::bf16, Layout::NN), {}));  // another layout
  judged.push_back(testkit::point(problem(4096, 4096, 2048), {}));                // another shape
  const auto shared = shared_problems(fitted, judged);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].first, fitted[2].problem);
  EXPECT_EQ(shared[0].second, renamed.problem);
  EXPECT_TRUE(shared_problems(fitted, {}).empty());
}

}  // namespace
}  // namespace tilewise::select
