// Merging databases: a union where they agree, the faster where one machine timed both, an error where two did.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "sample_database.hpp"
#include "select/merge.hpp"

namespace tilewise::select {
namespace {

using testkit::kH200;
using testkit::problem;

Database one(const Identity& id, const Problem& p, const std::string& family, const std::string& config, double us) {
  Database db;
  add(db, id, p, family, config, us);
  return db;
}

TEST(Merge, DisjointDatabasesUnite) {
  const Database a = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  const Database b = one(kH200, problem(4096, 4096, 4096), "cublaslt", testkit::kLt, 90);
  const Database c = one(kH200, problem(2048, 2048, 2048), "sm90", testkit::kSm90B, 30);
  const Database m = merge({{"a", a}, {"b", b}, {"c", c}});
  EXPECT_EQ(m.records.size(), 2u);
  EXPECT_EQ(m.identities.size(), 1u);
  EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "cublaslt")->us, 90);
  EXPECT_EQ(lookup(m, problem(2048, 2048, 2048), "sm90")->config, testkit::kSm90B);
}

TEST(Merge, TheSameEntryTwiceIsNoConflict) {
  const Database a = testkit::sample_database();
  EXPECT_EQ(merge({{"a", a}, {"a again", a}}), a);
}

TEST(Merge, OnOneMachineTheFasterEntryIsKeptInEitherOrder) {
  const Database slow = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  const Database fast = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 95);
  for (const Database& m : {merge({{"slow", slow}, {"fast", fast}}), merge({{"fast", fast}, {"slow", slow}})}) {
    EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "sm90")->config, testkit::kSm90B);
    EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "sm90")->us, 95);
  }
  // A tie keeps the same one whichever comes first.
  const Database tie = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 95);
  EXPECT_EQ(merge({{"tie", tie}, {"fast", fast}}), merge({{"fast", fast}, {"tie", tie}}));
}

// An overlay's entries take the place of the inputs' whatever the times (cold over warm); the rest stays.
TEST(Merge, AnOverlaysEntriesReplaceTheInputsWhateverTheTimes) {
  Database warm = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 9);
  add(warm, kH200, problem(2048, 2048, 2048), "sm90", testkit::kSm90A, 3);
  const Database cold = one(testkit::other_driver(), problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 13);
  const Database m = merge({{"warm", warm}}, {{"cold", cold}});
  EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "sm90")->config, testkit::kSm90B);
  EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "sm90")->us, 13);
  EXPECT_EQ(identity_of(m, *lookup(m, problem(4096, 4096, 4096), "sm90")), testkit::other_driver());
  EXPECT_EQ(lookup(m, problem(2048, 2048, 2048), "sm90")->config, testkit::kSm90A);
  EXPECT_EQ(merge({{"warm", warm}}, {}), warm);
  // An overlay may bring a problem or a family the inputs lack.
  const Database more = one(kH200, problem(1024, 1024, 1024), "cublaslt", testkit::kLt, 5);
  EXPECT_EQ(lookup(merge({{"warm", warm}}, {{"more", more}}), problem(1024, 1024, 1024), "cublaslt")->us, 5);
}

// An identity whose every entry an overlay replaced is dropped, or loading the result would check it and refuse.
TEST(Merge, AnIdentityNoEntryPointsToIsDropped) {
  const Database elsewhere = one(testkit::other_driver(), problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 9);
  const Database here = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 13);
  const Database m = merge({{"elsewhere", elsewhere}}, {{"here", here}});
  ASSERT_EQ(m.identities.size(), 1u);
  EXPECT_EQ(m.identities[0], kH200);
  EXPECT_EQ(lookup(m, problem(4096, 4096, 4096), "sm90")->identity, 0);
}

TEST(Merge, AcrossMachinesAConflictIsAnErrorNamingTheKey) {
  const Database here = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  const Database there = one(testkit::other_driver(), problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 80);
  const std::string error = testkit::error_of([&] { merge({{"here.json", here}, {"there.json", there}}); });
  EXPECT_TRUE(testkit::Contains(error, "merge conflict at '4096x4096x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096' (sm90)"));
  EXPECT_TRUE(testkit::Contains(error, "here.json has block_m=128,block_n=128"));
  EXPECT_TRUE(testkit::Contains(error, "there.json has block_m=128,block_n=128,stages=4"));
  EXPECT_TRUE(testkit::Contains(error, "driver: '580.95 (CUDA 13.0)' first, '590.10 (CUDA 13.1)' second"));
  // The same configuration timed on two machines still does not compare.
  const Database same_config = one(testkit::other_driver(), problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { merge({{"a", here}, {"b", same_config}}); }), "merge conflict"));
}

TEST(Merge, AcrossMachinesWithoutConflictEachEntryKeepsItsIdentity) {
  const Database here = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  const Database there = one(testkit::other_driver(), problem(2048, 2048, 2048), "sm90", testkit::kSm90B, 30);
  const Database m = merge({{"here", here}, {"there", there}});
  ASSERT_EQ(m.identities.size(), 2u);
  EXPECT_EQ(identity_of(m, *lookup(m, problem(4096, 4096, 4096), "sm90")), kH200);
  EXPECT_EQ(identity_of(m, *lookup(m, problem(2048, 2048, 2048), "sm90")), testkit::other_driver());
}

TEST(Merge, AddFollowsTheSameRule) {
  Database db = one(kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90A, 100);
  add(db, kH200, problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 120);  // slower: not kept
  EXPECT_EQ(lookup(db, problem(4096, 4096, 4096), "sm90")->config, testkit::kSm90A);
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { add(db, testkit::other_driver(), problem(4096, 4096, 4096), "sm90", testkit::kSm90B, 50); }),
      "merge conflict"));
}

}  // namespace
}  // namespace tilewise::select
