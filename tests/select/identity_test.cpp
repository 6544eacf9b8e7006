// What measured a tuned result, and the identity policy: another GPU, architecture or cuBLASLt major version
// refuses; a driver, runtime, NVRTC, cuBLASLt minor or tilewise difference warns.
#include <gtest/gtest.h>

#include "sample_database.hpp"
#include "select/identity.hpp"

namespace tilewise::select {
namespace {

using testkit::kH200;

TEST(IdentityPolicy, RefusesAnotherGpuArchitectureOrCublasltMajorAndWarnsOnTheRest) {
  const auto with = [](auto change) {
    Identity id = kH200;
    change(id);
    return compatibility(kH200, id);
  };
  EXPECT_TRUE(compatibility(kH200, kH200).refuse.empty());
  EXPECT_TRUE(compatibility(kH200, kH200).warn.empty());
  EXPECT_EQ(with([](Identity& i) { i.gpu = "NVIDIA H100 80GB HBM3"; }).refuse.size(), 1u);
  EXPECT_EQ(with([](Identity& i) { i.sm_count = 114; }).refuse.size(), 1u);
  EXPECT_EQ(with([](Identity& i) { i.cc = "10.0"; }).refuse.size(), 1u);
  const Compatibility major = with([](Identity& i) { i.cublaslt = "12.9.1"; });
  ASSERT_EQ(major.refuse.size(), 1u);
  EXPECT_EQ(major.refuse[0], "cublaslt: '13.1.0' recorded, '12.9.1' running");
  for (const Compatibility& c :
       {with([](Identity& i) { i.cublaslt = "13.2.4"; }), with([](Identity& i) { i.driver = "590.10 (CUDA 13.1)"; }),
        with([](Identity& i) { i.cuda_runtime = "13.1"; }), with([](Identity& i) { i.nvrtc = "13.1"; }),
        with([](Identity& i) { i.tilewise = "0.2.0"; })}) {
    EXPECT_TRUE(c.refuse.empty());
    EXPECT_EQ(c.warn.size(), 1u);
  }
  const Compatibility both = with([](Identity& i) { i.gpu = "NVIDIA B200"; i.driver = "600.1"; });
  EXPECT_EQ(both.refuse.size(), 1u);
  EXPECT_EQ(both.warn.size(), 1u);
}

TEST(Identity, ComesFromTheReceiptsMachineAndListsEveryDifference) {
  receipt::Machine m;
  m.gpu = "NVIDIA H200";
  m.sm_count = 132;
  m.cc = "9.0";
  m.driver = "580.95 (CUDA 13.0)";
  m.cuda_runtime = "13.0";
  m.cublaslt = "13.1.0";
  m.nvrtc = "13.0";
  EXPECT_EQ(identity_of(m, "0.1.0"), kH200);
  Identity h100 = kH200;
  h100.gpu = "NVIDIA H100";
  h100.sm_count = 114;
  h100.tilewise = "0.2.0";
  EXPECT_EQ(*mismatch(h100, kH200), "gpu: 'NVIDIA H100' recorded, 'NVIDIA H200' running; sm_count: '114' recorded, "
                                    "'132' running; tilewise: '0.2.0' recorded, '0.1.0' running");
  EXPECT_FALSE(mismatch(kH200, kH200));
}

}  // namespace
}  // namespace tilewise::select
