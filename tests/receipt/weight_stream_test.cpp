// The decode GEMV arms' additions to a receipt: the weight-stream rate (derived, and recomputed by the checker),
// the plain read of the same bytes timed beside the arm, the arm's own reference with its fp64 check, and its own
// cold rotation. Receipts without them still read.
#include <gtest/gtest.h>

#include "receipt/check.hpp"
#include "receipt/derive.hpp"
#include "receipt/sample_receipt.hpp"

namespace tilewise::receipt {
namespace {

using nlohmann::json;

bool mentions(const std::vector<std::string>& problems, const std::string& part) {
  for (const std::string& p : problems)
    if (p.find(part) != std::string::npos) return true;
  return false;
}

// The decode result's first arm as a quantized GEMV: 53.5 MB of Q8_0 weights, its own reference and rotation.
Receipt gemv_receipt() {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[1].arms[0];
  a.weight_bytes = 53477376;
  a.reference = "dequantized q8_0 weights of set 0";
  a.reference_check = ReferenceCheck{256, 2e-7, reference_bound, true};
  a.rotation_sets = 5;
  a.working_set_bytes = 5 * a.weight_bytes;
  a.plain_read_us.clear();
  for (double us : a.us) a.plain_read_us.push_back(0.8 * us);
  refresh_derived(r);
  return r;
}

TEST(WeightStream, DerivedFromTheWeightBytesAndTheRunsReadBandwidth) {
  const Receipt r = gemv_receipt();
  const ArmResult& a = r.results[1].arms[0];
  ASSERT_TRUE(a.weight_gbps && a.weight_bw_fraction);
  EXPECT_DOUBLE_EQ(*a.weight_gbps, 53477376 / *a.us_median / 1e3);
  EXPECT_DOUBLE_EQ(*a.weight_bw_fraction, *a.weight_gbps / read_bw_gbps(r.machine.read_bw));
  EXPECT_FALSE(r.results[1].arms[1].weight_gbps);  // an arm that reports no weight bytes gets no figure
  ASSERT_TRUE(a.plain_read_us_median && a.plain_read_ratio);
  EXPECT_DOUBLE_EQ(*a.plain_read_ratio, *a.plain_read_us_median / *a.us_median);
  EXPECT_NEAR(*a.plain_read_ratio, 0.8, 1e-12);
  EXPECT_FALSE(r.results[1].arms[1].plain_read_ratio);
  EXPECT_EQ(check(json(r)), std::vector<std::string>{});
}

TEST(WeightStream, RoundTripsAndOldReceiptsRead) {
  const Receipt r = gemv_receipt();
  EXPECT_EQ(json(r).get<Receipt>(), r);
  json old = json(sample_receipt());
  for (json& res : old["results"])
    for (json& arm : res["arms"]) arm.erase("reference");
  const Receipt back = old.get<Receipt>();
  EXPECT_EQ(back.results[0].arms[0].reference, "problem");
  EXPECT_EQ(back.results[0].arms[0].weight_bytes, 0);
  EXPECT_TRUE(back.results[0].arms[0].plain_read_us.empty());
  EXPECT_FALSE(back.results[0].arms[0].plain_read_ratio);
}

TEST(WeightStream, CheckerCatchesTamperingAndMissingChecks) {
  Receipt r = gemv_receipt();
  *r.results[1].arms[0].weight_gbps *= 1.1;
  EXPECT_TRUE(mentions(check(json(r)), "weight_gbps"));

  r = gemv_receipt();
  *r.results[1].arms[0].weight_bw_fraction = 0.99;
  EXPECT_TRUE(mentions(check(json(r)), "weight_bw_fraction"));

  r = gemv_receipt();
  *r.results[1].arms[0].plain_read_ratio = 0.99;
  EXPECT_TRUE(mentions(check(json(r)), "plain_read_ratio"));

  r = gemv_receipt();
  r.results[1].arms[0].plain_read_us.pop_back();
  refresh_derived(r);
  EXPECT_TRUE(mentions(check(json(r)), "plain-read samples"));

  r = gemv_receipt();
  r.results[1].arms[0].plain_read_us[0] = -1;
  refresh_derived(r);
  EXPECT_TRUE(mentions(check(json(r)), "is not a time"));

  r = gemv_receipt();
  r.results[1].arms[1].plain_read_us = r.results[1].arms[0].plain_read_us;  // beside an arm with no weight stream
  refresh_derived(r);
  EXPECT_TRUE(mentions(check(json(r)), "timed only beside"));

  r = gemv_receipt();
  r.results[1].arms[0].reference_check.reset();
  EXPECT_TRUE(mentions(check(json(r)), "carries no fp64 check"));

  r = gemv_receipt();
  r.results[1].arms[0].reference_check->max_err = 1e-2;
  EXPECT_TRUE(mentions(check(json(r)), "failed its fp64 check"));

  r = gemv_receipt();
  r.protocol.cold = true;
  r.protocol.working_set_bytes = 4 * r.machine.l2_bytes;
  for (Result& res : r.results) {  // the results' own rotations cover it; the arm's does not
    res.rotation_sets = int((r.protocol.working_set_bytes + rotation_set_bytes(res.problem) - 1) / rotation_set_bytes(res.problem));
    res.working_set_bytes = res.rotation_sets * rotation_set_bytes(res.problem);
  }
  r.protocol.rotation_sets = std::max(r.results[0].rotation_sets, r.results[1].rotation_sets);
  r.results[1].arms[0].working_set_bytes = r.protocol.working_set_bytes - 1;
  EXPECT_TRUE(mentions(check(json(r)), "own rotation"));
}

}  // namespace
}  // namespace tilewise::receipt
