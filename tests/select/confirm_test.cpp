// A database's entries confirmed by an independent run: kept only where that run timed them faster than cuBLASLt's
// default with ranges apart.
#include "select/confirm.hpp"

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "sample_database.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

receipt::ArmResult timed(const std::string& arm, nlohmann::json config, double lo, double median, double hi) {
  receipt::ArmResult a;
  a.arm = arm;
  a.config = std::move(config);
  a.correct = true;
  a.us_min = lo, a.us_median = median, a.us_max = hi;
  return a;
}

// One result: the shipped database's `family` entry for p in the arm `selected`, against cublaslt-default.
receipt::Result judged(const Problem& p, const std::string& family, const std::string& config, double lo,
                       double median, double hi, const std::string& source = "database") {
  receipt::Result res;
  res.problem = p;
  res.arms = {timed("cublaslt-default", {{"algo", 1}}, 99, 100, 101),
              timed("selected", {{"family", family}, {"config", config}, {"source", source}}, lo, median, hi)};
  return res;
}

TEST(Confirm, AnEntryStaysOnlyWhereTheRunTimedItFasterWithRangesApart) {
  const Database db = testkit::sample_database();
  const Problem sq = problem(4096, 4096, 4096), nn = problem(16, 16384, 4096, DType::fp16, Layout::NN);
  const Entry& sq_sm90 = *lookup(db, sq, "sm90");
  const std::string nn_family = db.records.at(signature(nn)).families.begin()->first;
  const std::string nn_config = db.records.at(signature(nn)).families.begin()->second.config;
  receipt::Receipt r;
  r.results = {judged(sq, "sm90", sq_sm90.config, 90, 91, 92),               // faster, ranges apart: kept
               judged(nn, nn_family, nn_config, 98, 99, 100)};                 // 1% faster, ranges touching: dropped
  const Confirmed c = confirm(db, {{"r.json", r}});
  ASSERT_EQ(c.judged.size(), 2u);
  EXPECT_EQ(c.dropped, 1);
  EXPECT_EQ(c.judged[1].claim, "none");
  EXPECT_NEAR(c.judged[0].speedup, 100.0 / 91, 1e-12);
  ASSERT_NE(lookup(c.db, sq, "sm90"), nullptr);
  EXPECT_EQ(*lookup(c.db, sq, "sm90"), sq_sm90);
  EXPECT_EQ(c.db.records.count(signature(nn)), 0u);  // its only family went, and the record with it
  // The record's other family, which the receipt did not run, stays.
  EXPECT_EQ(c.db.records.at(signature(sq)).families.size(), db.records.at(signature(sq)).families.size());
}

TEST(Confirm, AReceiptWithoutTheArmOrItsBaselineIsRefused) {
  // cuBLASLt's two arms only (a vendor receipt): it ran no entry, and a merge "confirmed" by it would keep them all.
  const Problem sq = problem(4096, 4096, 4096);
  receipt::Receipt r;
  r.results = {judged(sq, "sm90", "x", 90, 91, 92)};
  r.results[0].arms[1].arm = "cublaslt";
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(testkit::sample_database(), {{"vendor.json", r}}); }),
                                "vendor.json: no selected arm ran a database entry beside cublaslt-default (its arms: "
                                "cublaslt, cublaslt-default): it judges nothing"));
  r.results[0].arms[1].arm = "selected:tune";  // the arm with options is the arm, but here without its baseline
  r.results[0].arms[0].arm = "cublaslt";
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(testkit::sample_database(), {{"r.json", r}}); }),
                                "r.json: no selected arm ran a database entry beside cublaslt-default"));
  // `selected` beside its baseline, but what it ran came from the heuristic, not the database.
  r.results = {judged(sq, "cublaslt", "algo=1", 90, 91, 92, "heuristic")};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(testkit::sample_database(), {{"h.json", r}}); }),
                                "h.json: no selected arm ran a database entry beside cublaslt-default"));
}

TEST(Confirm, ABucketsEntryOrAnArmThatFailedJudgesNothingAndASecondJudgementCanDrop) {
  const Database db = testkit::sample_database();
  const Problem sq = problem(4096, 4096, 4096);
  const std::string config = lookup(db, sq, "sm90")->config;
  receipt::Receipt r;
  r.results = {judged(sq, "sm90", config, 150, 151, 152, "bucket")};
  receipt::Result failed = judged(sq, "sm90", config, 50, 51, 52);
  failed.arms[1].correct = false;
  r.results.push_back(failed);
  // Neither judges its entry, so the receipt judges nothing, and is refused rather than read as a judgement.
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(db, {{"r.json", r}}); }),
                                "r.json: no selected arm ran a database entry beside cublaslt-default"));
  r.results.push_back(judged(sq, "sm90", config, 90, 91, 92));  // with one that does, only that one is judged
  EXPECT_EQ(confirm(db, {{"r.json", r}}).judged.size(), 1u);
  // The same problem in two suites: faster in one, slower in the other: dropped once.
  receipt::Receipt twice;
  twice.results = {judged(sq, "sm90", config, 90, 91, 92), judged(sq, "sm90", config, 105, 106, 107),
                   judged(sq, "sm90", config, 90, 91, 92)};
  const Confirmed c = confirm(db, {{"a.json", twice}});
  EXPECT_EQ(c.dropped, 1);
  EXPECT_EQ(lookup(c.db, sq, "sm90"), nullptr);
}

TEST(Confirm, ARecheckDropsOnlyWhatItTimedSlowerWithRangesApart) {
  const Database db = testkit::sample_database();
  const Problem sq = problem(4096, 4096, 4096), nn = problem(16, 16384, 4096, DType::fp16, Layout::NN);
  const std::string sq_config = lookup(db, sq, "sm90")->config;
  const std::string nn_family = db.records.at(signature(nn)).families.begin()->first;
  const std::string nn_config = db.records.at(signature(nn)).families.begin()->second.config;
  receipt::Receipt tie, slower;
  tie.results = {judged(sq, "sm90", sq_config, 99, 100, 101), judged(nn, nn_family, nn_config, 102, 103, 104)};
  const Confirmed c = confirm(db, {{"later.json", tie}}, Keep::not_slower);
  ASSERT_EQ(c.judged.size(), 2u);
  EXPECT_EQ(c.dropped, 1);
  EXPECT_NE(lookup(c.db, sq, "sm90"), nullptr);          // a tie stays
  EXPECT_EQ(c.db.records.count(signature(nn)), 0u);      // slower with ranges apart goes
  EXPECT_EQ(confirm(db, {{"later.json", tie}}).dropped, 2);  // a confirming run keeps neither
}

TEST(Confirm, AReceiptMadeWithAnotherDatabaseIsRefusedNamingTheProblem) {
  const Database db = testkit::sample_database();
  receipt::Receipt r;
  r.results = {judged(problem(4096, 4096, 4096), "sm90", "block_m=64,block_n=64", 90, 91, 92)};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(db, {{"other.json", r}}); }),
                                "other.json: arm 'selected' ran sm90 block_m=64"));
  r.results = {judged(problem(123, 456, 789), "sm90", "x", 90, 91, 92)};
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { confirm(db, {{"other.json", r}}); }),
                                "made with another database"));
}

}  // namespace
}  // namespace tilewise::select
