// Deciding the family per problem from a receipt that timed each family's database entry side by side.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "sample_database.hpp"
#include "select/decide.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

receipt::ArmResult database_arm(const std::string& family, const std::string& config, double us) {
  receipt::ArmResult a;
  a.arm = "selected:" + family + "-db.json";
  a.config = {{"family", family}, {"config", config}, {"source", "database"}};
  a.correct = true;
  a.us_median = us;
  return a;
}

receipt::Receipt side_by_side(double sm90_us, double lt_us) {
  receipt::Receipt r;
  receipt::Result res;
  res.problem = make_problem("sq4096", 4096, 4096, 4096, DType::bf16, Layout::TN);  // the name is not in the key
  res.arms = {database_arm("sm90", testkit::kSm90A, sm90_us), database_arm("cublaslt", testkit::kLt, lt_us)};
  receipt::ArmResult vendor;
  vendor.arm = "cublaslt-default";
  vendor.config = {{"algo", 1}};
  vendor.correct = true;
  vendor.us_median = 1;  // fastest of all, but not a database arm: it decides nothing
  res.arms.push_back(vendor);
  r.results.push_back(res);
  return r;
}

TEST(Decide, TheFamilyFasterSideBySideIsKeptWithItsTime) {
  // The database says sm90 is slower (180.5 against 175.25); timed together, it was faster.
  const Decided d = decide(testkit::sample_database(), side_by_side(170, 176), "r.json");
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(d.decisions[0].family, "sm90");
  EXPECT_EQ(d.undecided, 0);
  const Record& rec = d.db.records.at(signature(problem(4096, 4096, 4096)));
  ASSERT_EQ(rec.families.size(), 1u);
  EXPECT_EQ(rec.families.at("sm90").us, 170);
  EXPECT_TRUE(testkit::Contains(rec.families.at("sm90").source, "campaign-a.json; decided in r.json"));
  // A record with one family is left as it is.
  EXPECT_EQ(d.db.records.at(signature(problem(16, 16384, 4096, DType::fp16, Layout::NN))),
            testkit::sample_database().records.at(signature(problem(16, 16384, 4096, DType::fp16, Layout::NN))));

  EXPECT_EQ(decide(testkit::sample_database(), side_by_side(180, 176), "r.json").decisions[0].family, "cublaslt");
}

TEST(Decide, APreferredFamilyKeepsTiesWithinItsMargin) {
  // sm90 2% faster: under a 3% margin cuBLASLt stays, under 1% sm90 wins; a preferred family that is itself the
  // fastest is kept either way, and the time kept is the kept family's own.
  const Preference lt3{"cublaslt", 0.03}, lt1{"cublaslt", 0.01};
  const Decided tie = decide(testkit::sample_database(), side_by_side(98, 100), "r.json", lt3);
  EXPECT_EQ(tie.decisions[0].family, "cublaslt");
  EXPECT_EQ(tie.db.records.at(signature(problem(4096, 4096, 4096))).families.at("cublaslt").us, 100);
  EXPECT_EQ(decide(testkit::sample_database(), side_by_side(98, 100), "r.json", lt1).decisions[0].family, "sm90");
  EXPECT_EQ(decide(testkit::sample_database(), side_by_side(96, 100), "r.json", lt3).decisions[0].family, "sm90");
  EXPECT_EQ(decide(testkit::sample_database(), side_by_side(105, 100), "r.json", lt3).decisions[0].family, "cublaslt");
  // A preference for a family the record lacks changes nothing; a margin outside [0, 1) is refused.
  EXPECT_EQ(decide(testkit::sample_database(), side_by_side(98, 100), "r.json", {"gemv", 0.5}).decisions[0].family, "sm90");
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { decide(testkit::sample_database(), side_by_side(98, 100), "r.json", {"cublaslt", 1.5}); }),
      "a preference margin is a fraction in [0, 1), not 1.5"));
}

TEST(Decide, AProblemWithoutTwoTimedFamiliesStaysUndecided) {
  receipt::Receipt r = side_by_side(170, 176);
  r.results[0].arms[1].correct = false;  // an incorrect arm's time is no time
  const Decided d = decide(testkit::sample_database(), r, "r.json");
  EXPECT_TRUE(d.decisions.empty());
  EXPECT_EQ(d.undecided, 1);
  EXPECT_EQ(d.db, testkit::sample_database());
  // A problem the receipt does not have is not its to decide, nor counted as undecided by it.
  r.results[0].problem = make_problem("other", 1024, 1024, 1024, DType::bf16, Layout::TN);
  EXPECT_EQ(decide(testkit::sample_database(), r, "r.json").undecided, 0);
}

TEST(Decide, AReceiptWhoseArmsRanNoDatabaseEntryIsRefused) {
  // Only cuBLASLt's arms (a vendor receipt): deciding with it would merge as if decided.
  receipt::Receipt r = side_by_side(170, 176);
  r.results[0].arms.erase(r.results[0].arms.begin(), r.results[0].arms.begin() + 2);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { decide(testkit::sample_database(), r, "vendor.json"); }),
                                "vendor.json: no arm timed a database entry (its arms: cublaslt-default; one that failed"));
}

TEST(Decide, AReceiptThatTimedSomeOfTheFamiliesLeavesTheRecordForOneThatTimedAll) {
  // A family tuned after the first deciding receipt (gemv beside sm90 and cuBLASLt): that receipt timed two of the
  // three, and must not drop the third; the receipt that timed all three decides.
  Database db = testkit::sample_database();
  const std::string key = signature(problem(4096, 4096, 4096));
  const std::string gemv_config = "m=16,w=bf16,x=bf16,engine=mma,threads=256,cols=16,ksplit=8,unroll=4,hint=na,persistent=0,pdl=0";
  db.records.at(key).families["gemv"] = Entry{gemv_config, 150, 0, "campaign-g.json"};
  const Decided two = decide(db, side_by_side(170, 176), "r.json");
  EXPECT_TRUE(two.decisions.empty());
  EXPECT_EQ(two.undecided, 1);
  EXPECT_EQ(two.db.records.at(key).families.size(), 3u);
  receipt::Receipt all = side_by_side(170, 176);
  all.results[0].arms.push_back(database_arm("gemv", gemv_config, 160));
  const Decided three = decide(db, all, "r2.json");
  ASSERT_EQ(three.decisions.size(), 1u);
  EXPECT_EQ(three.decisions[0].family, "gemv");
  EXPECT_EQ(three.db.records.at(key).families.size(), 1u);
}

TEST(Decide, AReceiptMadeWithAnotherDatabaseIsRefused) {
  receipt::Receipt r = side_by_side(170, 176);
  r.results[0].arms[0].config["config"] = testkit::kSm90B;
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { decide(testkit::sample_database(), r, "r.json"); }),
                                "the receipt was made with another database"));
  r = side_by_side(170, 176);
  r.results[0].arms[0].config["family"] = "gemv";
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { decide(testkit::sample_database(), r, "r.json"); }),
                                "ran a gemv entry"));
}

}  // namespace
}  // namespace tilewise::select
