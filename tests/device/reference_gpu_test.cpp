// The GPU reference against fp64 on the CPU, and the error metric every arm is judged by.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"

namespace tilewise::device {
namespace {

struct Shape {
  int64_t M, N, K;
};

std::vector<Problem> problems() {
  std::vector<Problem> out;
  const Shape shapes[] = {{1, 1, 1}, {37, 53, 71}, {64, 64, 64}, {130, 67, 300}, {1, 300, 1000}};
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (Layout l : {Layout::TN, Layout::NN})
      for (int64_t pad : {0, 16})
        for (const Shape& s : shapes) {
          if (d == DType::fp8_e4m3 && l == Layout::NN) continue;
          out.push_back(make_problem("t", s.M, s.N, s.K, d, l, pad));
        }
  return out;
}

TEST(Reference, MatchesFp64OnEveryElementOfSmallShapes) {
  TW_REQUIRE_GPU();
  Stream s;
  for (const Problem& p : problems()) {
    SCOPED_TRACE(describe(p));
    Operands ops(p, 1, Reference::bytes(p));
    ops.fill(42, s.get());
    const Reference ref(p, ops.set(0), s.get());
    const int side = int(std::max(p.M, p.N));  // every row and every column: all elements
    const receipt::ReferenceCheck check = ref.check_fp64(ops.set(0), side);
    EXPECT_EQ(check.samples, int(std::min<int64_t>(side, p.M) * std::min<int64_t>(side, p.N)));
    EXPECT_TRUE(check.ok) << "max error " << check.max_err;
    EXPECT_LT(check.max_err, receipt::reference_bound);
  }
}

TEST(Reference, PoisonedOutputIsNeverCorrect) {
  TW_REQUIRE_GPU();
  Stream s;
  const Problem p = make_problem("poison", 96, 80, 64, DType::bf16, Layout::TN);
  Operands ops(p, 1, Reference::bytes(p));
  ops.fill(7, s.get());  // leaves C poisoned
  const Reference ref(p, ops.set(0), s.get());
  const OutputError e = ref.compare(ops.set(0).c.get(), s.get());
  EXPECT_FALSE(e.rel_err.has_value());
  EXPECT_EQ(e.non_finite, uint64_t(p.M * p.N));
  EXPECT_FALSE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)));
}

TEST(Reference, ZeroOutputHasRelativeErrorOne) {
  TW_REQUIRE_GPU();
  Stream s;
  const Problem p = make_problem("zero", 96, 80, 64, DType::fp16, Layout::NN, 8);
  Operands ops(p, 1, Reference::bytes(p));
  ops.fill(9, s.get());
  const Reference ref(p, ops.set(0), s.get());
  ASSERT_EQ(cudaMemset(ops.set(0).c.get(), 0, ops.set(0).c.bytes()), cudaSuccess);
  const OutputError e = ref.compare(ops.set(0).c.get(), s.get());
  ASSERT_TRUE(e.rel_err.has_value());
  EXPECT_NEAR(*e.rel_err, 1.0, 1e-12);
}

TEST(Operands, FillsAreRandomInRangeAndDifferBySeed) {
  TW_REQUIRE_GPU();
  Stream s;
  const Problem p = make_problem("fill", 256, 256, 256, DType::bf16, Layout::TN);
  Operands ops(p, 2, 0);
  auto host_a = [&](int set) {
    std::vector<uint16_t> h(size_t(ops.set(set).a.bytes() / 2));
    EXPECT_EQ(cudaMemcpy(h.data(), ops.set(set).a.get(), ops.set(set).a.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  };
  ops.fill(1, s.get());
  s.sync();
  const auto first = host_a(0), other_set = host_a(1);
  ops.fill(2, s.get());
  s.sync();
  const auto reseeded = host_a(0);
  EXPECT_NE(first, other_set);
  EXPECT_NE(first, reseeded);
  size_t zeros = 0;
  double sum = 0;
  for (uint16_t bits : first) {
    const float v = std::bit_cast<float>(uint32_t(bits) << 16);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    zeros += v == 0.0f;
    sum += v;
  }
  EXPECT_LT(zeros, first.size() / 1000);
  EXPECT_LT(std::fabs(sum / double(first.size())), 0.02);  // centred on zero
}

}  // namespace
}  // namespace tilewise::device
