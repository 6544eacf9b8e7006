// Campaigns: one file, rewritten after every round and case; stopped anywhere, resumed to the same result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "expect_error.hpp"
#include "select/json_file.hpp"
#include "synthetic_space.hpp"
#include "tune/campaign.hpp"
#include "tune/to_database.hpp"

namespace tilewise::tune {
namespace {

namespace fs = std::filesystem;

const select::Identity kHere{"NVIDIA H200", 132, "9.0", "580.1", "13.0", "13.1.0", "13.0", "0.1.0"};

std::vector<Case> some_cases() { return testkit::synthetic_cases(4); }

// Each case gets the synthetic space; its truth depends on the case through the measure's seed and case id.
Tunable tunable_for(const Case&) { return testkit::synthetic_tunable(); }

testkit::ScriptedMeasure measure(int interrupt_at = -1) {
  testkit::ScriptedMeasure m;
  m.truth = testkit::synthetic_truth(11);
  m.seed = 11;
  m.interrupt_at = interrupt_at;
  return m;
}

// Wall times differ from run to run; everything else must not.
Campaign without_wall_time(Campaign c) {
  for (CaseResult& r : c.cases)
    for (Round& round : r.rounds) round.wall_s = 0;
  return c;
}

struct CampaignTest : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / (std::string("tw_campaign_") + std::to_string(::getpid()));
  std::string path = (dir / "campaign.json").string();
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(CampaignTest, RunsEveryCaseAndWritesAFileThatReadsBack) {
  testkit::ScriptedMeasure m = measure();
  const Campaign c = run_campaign(path, some_cases(), tunable_for, m, kHere);
  ASSERT_EQ(c.cases.size(), 4u);
  for (const CaseResult& r : c.cases) {
    EXPECT_EQ(r.status, Status::finished);
    EXPECT_EQ(r.rounds.size(), 5u);  // four groups, then the confirm round (each case moved)
    EXPECT_TRUE(testkit::rounds_are_groups_then_confirm(r, 4));
  }
  EXPECT_EQ(read_campaign(path), c);
  EXPECT_EQ(m.calls, 20);
  // Nothing left to do: a rerun measures nothing.
  testkit::ScriptedMeasure again = measure();
  EXPECT_EQ(run_campaign(path, some_cases(), tunable_for, again, kHere), c);
  EXPECT_EQ(again.calls, 0);
}

// Interrupted at every measurement in turn (case x round), then resumed with a fresh process: the same campaign as
// one that was never interrupted, and no finished round measured twice.
TEST_F(CampaignTest, ResumingAfterAnInterruptionAnywhereGivesTheSameResult) {
  testkit::ScriptedMeasure whole = measure();
  const Campaign reference = without_wall_time(run_campaign(path, some_cases(), tunable_for, whole, kHere));
  for (int stop = 0; stop < whole.calls; ++stop) {
    fs::remove(path);
    testkit::ScriptedMeasure first = measure(stop);
    EXPECT_THROW(run_campaign(path, some_cases(), tunable_for, first, kHere), testkit::Interrupted);
    if (stop > 0) {
      const Campaign partial = read_campaign(path);  // the file holds every round finished before the stop
      int rounds = 0;
      for (const CaseResult& r : partial.cases) rounds += int(r.rounds.size());
      EXPECT_EQ(rounds, stop);
    }
    testkit::ScriptedMeasure second = measure();
    EXPECT_EQ(without_wall_time(run_campaign(path, some_cases(), tunable_for, second, kHere)), reference)
        << "stopped at measurement " << stop;
    EXPECT_EQ(second.calls, whole.calls - stop);
  }
}

TEST_F(CampaignTest, TheGridResumesByCase) {
  CampaignOptions grid{"grid", {.cap = 20, .seed = 4}};
  testkit::ScriptedMeasure whole = measure();
  const Campaign reference = without_wall_time(run_campaign(path, some_cases(), tunable_for, whole, kHere, grid));
  EXPECT_EQ(whole.calls, 4);
  fs::remove(path);
  testkit::ScriptedMeasure first = measure(2);
  EXPECT_THROW(run_campaign(path, some_cases(), tunable_for, first, kHere, grid), testkit::Interrupted);
  testkit::ScriptedMeasure second = measure();
  EXPECT_EQ(without_wall_time(run_campaign(path, some_cases(), tunable_for, second, kHere, grid)), reference);
  EXPECT_EQ(second.calls, 2);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { run_campaign(path, some_cases(), tunable_for, second, kHere); }),
                                "a grid campaign cannot be continued in descent mode"));
}

TEST_F(CampaignTest, RefusesToContinueOnAnotherMachineOrUnderAnotherSearch) {
  testkit::ScriptedMeasure m = measure(6);  // case0's five rounds and case1's first are in the file
  EXPECT_THROW(run_campaign(path, some_cases(), tunable_for, m, kHere), testkit::Interrupted);
  select::Identity elsewhere = kHere;
  elsewhere.driver = "590.0";
  testkit::ScriptedMeasure again = measure();
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { run_campaign(path, some_cases(), tunable_for, again, elsewhere); }),
      "started on another machine (driver: '580.1' recorded, '590.0' running)"));
  const TunableFor other_start = [](const Case&) {
    Tunable t = testkit::synthetic_tunable();
    t.warm_start = testkit::cfg("tile=1,split=1,red=a,map=0,vw=1,x=7");
    return t;
  };
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { run_campaign(path, some_cases(), other_start, again, kHere); }),
                                "case 'case1' was started under something else (warm start"));
  const TunableFor other_space = [](const Case&) {
    Tunable t = testkit::synthetic_tunable();
    t.space.groups.pop_back();
    return t;
  };
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { run_campaign(path, some_cases(), other_space, again, kHere); }),
                                "(search space"));
  EXPECT_EQ(again.calls, 0);
}

TEST_F(CampaignTest, ACaseThatCannotBeTunedIsRecordedAsFailedAndRetried) {
  const TunableFor refuse_case2 = [](const Case& c) {
    Tunable t = testkit::synthetic_tunable();
    if (c.id == "case2") t.warm_start = testkit::cfg("tile=5,split=4,red=a,map=0,vw=1,x=7");
    return t;
  };
  testkit::ScriptedMeasure m = measure();
  Campaign c = run_campaign(path, some_cases(), refuse_case2, m, kHere);
  EXPECT_EQ(c.cases[2].status, Status::failed);
  EXPECT_TRUE(testkit::Contains(c.cases[2].error, "warm start tile=5,split=4,red=a,map=0,vw=1,x=7 is infeasible"));
  EXPECT_EQ(c.cases[3].status, Status::finished);
  testkit::ScriptedMeasure again = measure();
  c = run_campaign(path, some_cases(), tunable_for, again, kHere);
  EXPECT_EQ(c.cases[2].status, Status::finished);
  EXPECT_EQ(again.calls, 5);  // only the failed case ran: its four rounds and the confirm round
}

TEST_F(CampaignTest, ACorruptFileIsReportedWhereItIsWrong) {
  testkit::ScriptedMeasure m = measure();
  run_campaign(path, some_cases(), tunable_for, m, kHere);
  nlohmann::json j = select::read_json_file(path);
  j["cases"][1]["rounds"][2]["latency_us"] = "fast";
  std::ofstream(path) << j.dump(1);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_campaign(path); }),
                                "/cases/1/rounds/2/latency_us: expected a number, got string"));
  std::ofstream(path) << j.dump(1).substr(0, 100);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_campaign(path); }), path + ":"));
}

// A round's counts once wrapped past an int's range (2^32 + 3 candidates timed read as 3): refused where they are.
TEST_F(CampaignTest, ACountPastAnIntsRangeIsRefusedNotWrapped) {
  testkit::ScriptedMeasure m = measure();
  run_campaign(path, some_cases(), tunable_for, m, kHere);
  nlohmann::json j = select::read_json_file(path);
  j["cases"][0]["rounds"][0]["timed"] = (int64_t(1) << 32) + 3;
  std::ofstream(path) << j.dump(1);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_campaign(path); }),
                                "/cases/0/rounds/0/timed: 4294967299 is not a count (0..2147483647)"));
}

TEST_F(CampaignTest, DroppedCountsReadBackAndOlderFilesWithoutThemReadAsNone) {
  testkit::ScriptedMeasure m = measure();
  m.drop_margin = 0.05;
  const Campaign c = run_campaign(path, some_cases(), tunable_for, m, kHere);
  int dropped = 0;
  for (const CaseResult& r : c.cases)
    for (const Round& round : r.rounds) dropped += round.dropped;
  EXPECT_GT(dropped, 0);
  EXPECT_EQ(read_campaign(path), c);

  nlohmann::json j = select::read_json_file(path);
  for (auto& r : j["cases"])
    for (auto& round : r["rounds"]) round.erase("dropped");
  std::ofstream(path) << j.dump(1);
  for (const CaseResult& r : read_campaign(path).cases)
    for (const Round& round : r.rounds) EXPECT_EQ(round.dropped, 0);
}

// A finished campaign becomes the database selection loads: each finished case's configuration as its family's
// canonical text (the tuner's form writes out fields the text leaves out), under the campaign's identity. A running
// case has no result to trust, and a family the registry does not know cannot enter a database.
TEST_F(CampaignTest, AFinishedCampaignBecomesADatabase) {
  testkit::ScriptedMeasure m = measure();
  const Campaign synthetic = run_campaign(path, some_cases(), tunable_for, m, kHere);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { to_database(synthetic, "campaign.json"); }),
                                "unknown family 'synthetic'"));

  const Problem p = make_problem("p", 4096, 4096, 4096, DType::bf16, Layout::TN);
  const Problem q = make_problem("q", 4096, 4096, 2048, DType::bf16, Layout::TN);
  const std::string sm90 = "block_m=128,block_n=128,stages=6,consumers=2,raster=m,group=8,store=tma,"
                           "schedule=cooperative,cluster=1x1,split=1";
  const std::string lt = "algo=66,tile=28,stages=18,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=2";
  const auto finished = [](Case c, std::string best, double us, Status status = Status::finished) {
    CaseResult r;
    r.c = std::move(c);
    r.best = std::move(best);
    r.best_us = us;
    r.status = status;
    return r;
  };
  Campaign c;
  c.mode = "descent";
  c.identity = kHere;
  c.cases = {finished({"p sm90", "sm90", p}, sm90 + ",swap=0,pdl=0", 100),
             finished({"p cublaslt", "cublaslt", p}, lt, 90),
             finished({"q sm90", "sm90", q}, sm90, 50, Status::running)};
  const select::Database db = to_database(c, "campaign.json");
  ASSERT_EQ(db.records.size(), 1u);
  ASSERT_EQ(db.identities, std::vector<select::Identity>{kHere});
  const select::Entry* e = select::lookup(db, p, "sm90");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config, sm90);
  EXPECT_EQ(e->us, 100);
  EXPECT_EQ(e->source, "campaign.json");
  ASSERT_NE(select::lookup(db, p, "cublaslt"), nullptr);
  EXPECT_EQ(select::lookup(db, p, "cublaslt")->config, lt);
  EXPECT_EQ(select::lookup(db, q, "sm90"), nullptr);
}

}  // namespace
}  // namespace tilewise::tune
