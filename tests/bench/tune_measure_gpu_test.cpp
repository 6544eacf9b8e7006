// The tuner's timing source on the GPU: every candidate built, gated, and the correct ones timed in interleaved
// repeats (one sample per repeat), chunked or not, for each family; and a whole campaign over sm90 and cuBLASLt that
// never gets slower.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include <unistd.h>

#include "bench/tune_measure.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/tuning.hpp"
#include "families/registry.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/tuning.hpp"
#include "gpu.hpp"
#include "select/api.hpp"
#include "tune/campaign.hpp"

namespace tilewise::bench {
namespace {

TuneMeasureOptions quick(int chunk = 48) {
  TuneMeasureOptions o;
  o.drop_margin = -1;  // every candidate timed in every repeat, unless a test screens
  o.repeats = 3;
  o.replays = 1;
  o.graph_target_ms = 0.3;
  o.warmup_s = 0.5;
  o.rewarm_ms = 20;
  o.chunk = chunk;
  return o;
}

const Problem kP = make_problem("p", 1024, 1024, 1024, DType::bf16, Layout::TN);

std::vector<tune::Config> sm90_candidates() {
  const std::vector<sm90::Config> feasible = sm90::feasible_set(kP);
  std::vector<tune::Config> out{sm90::tuner_fields(sm90::first_rule(kP)), sm90::tuner_fields(feasible.front()),
                                sm90::tuner_fields(feasible[feasible.size() / 2])};
  sm90::Config too_big = sm90::first_rule(kP);
  too_big.stages = 64;  // never fits in shared memory
  out.push_back(sm90::tuner_fields(too_big));
  return out;
}

void expect_timed(const tune::Timing& t, int repeats) {
  EXPECT_TRUE(t.compiled);
  EXPECT_EQ(t.error, "");
  ASSERT_EQ(int(t.us.size()), repeats);
  for (double us : t.us) EXPECT_GT(us, 0);
}

TEST(TuneMeasure, Sm90CandidatesAreBuiltGatedAndTimedOncePerRepeat) {
  TW_REQUIRE_GPU();
  for (int chunk : {48, 2}) {  // all at once, and one candidate beside the anchor per chunk
    SCOPED_TRACE(chunk);
    TuneMeasure m(quick(chunk));
    const std::vector<tune::Timing> t = m.measure({"p sm90", "sm90", kP}, sm90_candidates());
    ASSERT_EQ(t.size(), 4u);
    for (int i = 0; i < 3; ++i) expect_timed(t[size_t(i)], 3);
    // The incumbent's samples come with a candidate timed in a later chunk than the first: it is judged by those.
    EXPECT_TRUE(t[0].incumbent_us.empty());
    EXPECT_TRUE(t[1].incumbent_us.empty());
    EXPECT_EQ(t[2].incumbent_us.size(), chunk == 2 ? 3u : 0u);
    EXPECT_FALSE(t[3].compiled);
    EXPECT_NE(t[3].error, "");
    EXPECT_TRUE(t[3].us.empty());
  }
}

// With no margin, a candidate stops at the first repeat it is not faster than the incumbent in that same repeat, and
// one that is never stopped was faster in every repeat: the samples say exactly where each stopped.
TEST(TuneMeasure, ACandidateThatARepeatRulesOutIsTimedNoFurther) {
  TW_REQUIRE_GPU();
  TuneMeasureOptions o = quick();
  o.drop_margin = 0;
  o.repeats = 4;
  std::string progress;
  o.progress = [&](const std::string& line) { progress = line; };
  TuneMeasure m(o);
  std::vector<tune::Config> candidates = sm90_candidates();
  candidates.pop_back();  // the one that never builds
  candidates.push_back(candidates.front());  // the incumbent again: a tie stops it
  const std::vector<tune::Timing> t = m.measure({"p sm90", "sm90", kP}, candidates);
  EXPECT_FALSE(t[0].dropped);
  ASSERT_EQ(t[0].us.size(), 4u);
  int dropped = 0;
  for (size_t j = 1; j < t.size(); ++j) {
    SCOPED_TRACE(j);
    const size_t n = t[j].us.size();
    ASSERT_GE(n, 1u);
    for (size_t r = 0; r + (t[j].dropped ? 1 : 0) < n; ++r) EXPECT_LT(t[j].us[r], t[0].us[r]);
    if (t[j].dropped) EXPECT_GE(t[j].us.back(), t[0].us[n - 1]);
    else EXPECT_EQ(n, 4u);
    dropped += t[j].dropped;
  }
  EXPECT_NE(progress.find(fmt::format("({} dropped)", dropped)), std::string::npos) << progress;
}

TEST(TuneMeasure, CublasltCandidatesAreCheckedByCublaslt) {
  TW_REQUIRE_GPU();
  TuneMeasure m(quick());
  const tune::Tunable t = families::family("cublaslt").tunable(kP, m.resources(), std::nullopt);
  tune::Config bogus = t.warm_start;
  bogus = tune::apply(bogus, tune::parse("algo=99999"));
  const std::vector<tune::Timing> timings = m.measure({"p cublaslt", "cublaslt", kP}, {t.warm_start, bogus});
  expect_timed(timings[0], 3);
  EXPECT_FALSE(timings[1].compiled);
  EXPECT_NE(timings[1].error, "");
}

// A decode shape's gemv candidates: the default (the mma engine) and the fma engine's, compiled ahead of timing,
// gated correct and timed; one built for another M carries why it cannot run.
TEST(TuneMeasure, GemvCandidatesAreBuiltGatedAndTimed) {
  TW_REQUIRE_GPU();
  TuneMeasure m(quick());
  const Problem p = make_problem("d16", 16, 4096, 1024, DType::bf16, Layout::TN);
  const tune::Tunable t = families::family("gemv").tunable(p, m.resources(), std::nullopt);
  const gemv::Config fma = gemv::default_config(p, gemv::Format::bf16, m.resources().sm_count, gemv::Engine::fma);
  ASSERT_NE(gemv::from_fields(t.warm_start), fma);
  const tune::Config other_m = tune::apply(t.warm_start, tune::parse("m=8"));
  const std::vector<tune::Timing> timings =
      m.measure({"d16 gemv", "gemv", p}, {t.warm_start, gemv::tuner_fields(fma), other_m});
  ASSERT_EQ(timings.size(), 3u);
  expect_timed(timings[0], 3);
  expect_timed(timings[1], 3);
  EXPECT_FALSE(timings[2].compiled);
  EXPECT_NE(timings[2].error, "");
}

TEST(TuneMeasure, AnUnknownFamilyFailsTheCase) {
  TW_REQUIRE_GPU();
  TuneMeasure m(quick());
  EXPECT_THROW(m.measure({"p nope", "nope", kP}, {tune::parse("m=1")}), Error);
}

// A small campaign over both families: every case finishes, its latency never rises, and a rerun measures nothing.
TEST(TuneMeasure, ACampaignOverBothFamiliesIsMonotoneAndResumable) {
  TW_REQUIRE_GPU();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tw_tune_gpu_" + std::to_string(::getpid()) + ".json")).string();
  std::filesystem::remove(path);
  TuneMeasure m(quick());
  const Problem small = make_problem("s", 512, 1024, 512, DType::bf16, Layout::TN);
  const std::vector<tune::Case> cases{{"s sm90", "sm90", small}, {"s cublaslt", "cublaslt", small}};
  const tune::TunableFor tunable_for = [&](const tune::Case& c) {
    return families::family(c.family).tunable(c.problem, m.resources(), std::nullopt);
  };
  const tune::Campaign done = tune::run_campaign(path, cases, tunable_for, m, running_identity());
  ASSERT_EQ(done.cases.size(), 2u);
  for (const tune::CaseResult& r : done.cases) {
    SCOPED_TRACE(r.c.id);
    EXPECT_EQ(r.status, tune::Status::finished) << r.error;
    const std::vector<double> traj = tune::trajectory(r);
    for (size_t i = 1; i < traj.size(); ++i) EXPECT_LE(traj[i], traj[i - 1]);
    for (const tune::Round& round : r.rounds) EXPECT_GE(round.timed, 1) << round.group;
  }
  EXPECT_EQ(tune::run_campaign(path, cases, tunable_for, m, running_identity()), done);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tilewise::bench
