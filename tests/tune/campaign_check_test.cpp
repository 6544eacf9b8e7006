// A campaign holds only what its samples say: descents and grids the tuner ran pass, and every figure edited after
// the fact (a best time twice the start, a negative time, M = -5, a sample changed) is named.
#include "tune/campaign_check.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <tuple>

#include "expect_error.hpp"
#include "select/json_file.hpp"
#include "scripted_measure.hpp"
#include "synthetic_space.hpp"

namespace tilewise::tune {
namespace {

namespace fs = std::filesystem;
using testkit::Contains;

const select::Identity kHere{"NVIDIA H200", 132, "9.0", "580.1", "13.0", "13.1.0", "13.0", "0.1.0"};

std::vector<Case> some_cases() { return testkit::synthetic_cases(3); }

::testing::AssertionResult Names(const std::vector<std::string>& found, const std::string& part) {
  for (const std::string& f : found)
    if (f.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  std::string all;
  for (const std::string& f : found) all += "\n  " + f;
  return ::testing::AssertionFailure() << "no problem names '" << part << "'; found:" << (all.empty() ? " none" : all);
}

struct CampaignCheck : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("tw_campaign_check_" + std::to_string(::getpid()));
  std::string path = (dir / "campaign.json").string();
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  Campaign tuned(const CampaignOptions& options = {}, int chunk = 0) {
    testkit::ScriptedMeasure m;
    m.truth = testkit::synthetic_truth(5);
    m.seed = 5;
    m.chunk = chunk;
    return run_campaign(path, some_cases(), [](const Case&) { return testkit::synthetic_tunable(); }, m, kHere,
                        options);
  }
  // The first case that adopted a winner, and that round.
  static std::pair<CaseResult*, Round*> adoption(Campaign& c) {
    for (CaseResult& r : c.cases)
      for (Round& round : r.rounds)
        if (round.adopted && round.group != kConfirmRound) return {&r, &round};
    ADD_FAILURE() << "no case adopted a winner";
    return {nullptr, nullptr};
  }
};

TEST_F(CampaignCheck, WhatTheTunerRecordsHolds) {
  const Campaign descent = tuned();
  EXPECT_TRUE(check_campaign(descent).empty()) << check_campaign(descent).front();
  fs::remove(path);
  const Campaign chunked = tuned({}, 3);  // winners judged against the incumbent of their own chunk
  EXPECT_TRUE(check_campaign(chunked).empty()) << check_campaign(chunked).front();
  fs::remove(path);
  const Campaign grid = tuned(CampaignOptions{"grid", {.cap = 20, .seed = 4}}, 5);
  EXPECT_TRUE(check_campaign(grid).empty()) << check_campaign(grid).front();
}

// The case: `check` read such a file as "valid; latency never rose".
TEST_F(CampaignCheck, ABestTimeTwiceTheStartIsNamed) {
  Campaign c = tuned();
  c.cases[0].best_us = 2 * c.cases[0].start_us;
  EXPECT_TRUE(Names(check_campaign(c), "case 'case0': best_us"));
  EXPECT_TRUE(Names(check_campaign(c), "does not match its samples"));
}

TEST_F(CampaignCheck, NegativeAndNonFiniteTimesAreNamed) {
  Campaign c = tuned();
  c.cases[0].rounds[0].incumbent_us[0] = -1;
  c.cases[1].start_us = -3;
  c.cases[2].rounds[1].latency_us = std::nan("");
  const std::vector<std::string> found = check_campaign(c);
  EXPECT_TRUE(Names(found, "case 'case0' round 0 (tile): sample -1 is not a time"));
  EXPECT_TRUE(Names(found, "case 'case1': start_us -3 and best_us"));
  EXPECT_TRUE(Names(found, "case 'case2' round 1"));
  EXPECT_TRUE(Names(found, "latency_us nan is not a time"));
}

TEST_F(CampaignCheck, AProblemTheLibraryRefusesIsNamed) {
  Campaign c = tuned();
  c.cases[1].c.problem.M = -5;
  EXPECT_TRUE(Names(check_campaign(c), "case 'case1': invalid problem: p1: M = -5 must be positive"));
}

// A sample changed after the run: the latency the round records no longer follows from its samples, or the winner
// no longer wins strictly.
TEST_F(CampaignCheck, TamperedSamplesAreNamed) {
  Campaign c = tuned();
  auto [r, round] = adoption(c);
  round->winner_us[0] *= 0.5;
  EXPECT_TRUE(Names(check_campaign(c), fmt::format("case '{}' round", r->c.id)));
  EXPECT_TRUE(Names(check_campaign(c), "latency_us"));
  c = tuned();
  std::tie(r, round) = adoption(c);
  for (double& us : round->winner_us) us = 1e9;  // now the slowest, and still adopted
  EXPECT_TRUE(Names(check_campaign(c), "whose samples do not win strictly against the incumbent's"));
}

TEST_F(CampaignCheck, ARecordedRiseOrABrokenChainIsNamed) {
  Campaign c = tuned();
  auto [r, round] = adoption(c);
  round->latency_us = 2 * r->start_us;
  EXPECT_TRUE(Names(check_campaign(c), "latency_us"));
  c = tuned();
  std::tie(r, round) = adoption(c);
  r->best = "tile=9";
  EXPECT_TRUE(Names(check_campaign(c), "best tile=9 is not the configuration its rounds hold"));
  c = tuned();
  c.cases[0].rounds[1].incumbent = "tile=9";
  EXPECT_TRUE(Names(check_campaign(c), "incumbent tile=9 is not the configuration held"));
  c = tuned();
  c.cases.push_back(c.cases[0]);
  EXPECT_TRUE(Names(check_campaign(c), "case 'case0' is recorded twice"));
}

// A failed case is tuned again from its warm start and never exported: what it holds is not judged.
TEST_F(CampaignCheck, FailedCasesAreNotJudged) {
  Campaign c = tuned();
  c.cases[0].status = Status::failed;
  c.cases[0].best_us = -1;
  EXPECT_TRUE(check_campaign(c).empty());
}

TEST_F(CampaignCheck, ATamperedFileIsNeitherResumedNorCompared) {
  Campaign c = tuned();
  c.cases[0].best_us *= 2;
  select::write_json_file_atomically(to_json(c), path);
  EXPECT_TRUE(Contains(testkit::error_of([&] { require_sound(read_campaign(path), path); }),
                       "the campaign does not hold its figures"));
  EXPECT_TRUE(Contains(testkit::error_of([&] { tuned(); }), path + ": the campaign does not hold its figures"));
}

}  // namespace
}  // namespace tilewise::tune
