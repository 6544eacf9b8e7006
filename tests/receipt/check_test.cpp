#include "receipt/check.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "receipt/derive.hpp"
#include "receipt/receipt.hpp"
#include "receipt/sample_receipt.hpp"
#include "receipt/verdict.hpp"
#include "temp_dir.hpp"

namespace tilewise::receipt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "\n  " + s;
  return out.empty() ? " (none)" : out;
}

// Success when one of `problems` contains every one of `parts`.
testing::AssertionResult Reports(const std::vector<std::string>& problems, std::initializer_list<std::string> parts) {
  for (const std::string& p : problems) {
    bool all = true;
    for (const std::string& part : parts) all = all && p.find(part) != std::string::npos;
    if (all) return testing::AssertionSuccess();
  }
  std::string want;
  for (const std::string& part : parts) want += " '" + part + "'";
  return testing::AssertionFailure() << "no problem contains" << want << "; found:" << joined(problems);
}

json sample() { return sample_receipt(); }

json& arm0(json& j) { return j["results"][0]["arms"][0]; }  // sq2048 [cublaslt]

TEST(Check, SampleReceiptHasNoProblems) {
  const std::vector<std::string> found = check(sample());
  EXPECT_TRUE(found.empty()) << joined(found);
}

// A receipt that records its run's plan holds every planned case in its results or its skipped, and no result it
// did not plan: a result taken out (or put in) is found with nothing but the file. Receipts without a plan (written
// before it was recorded) are judged as before.
TEST(Check, APlannedCaseTakenOutOrAResultPutInIsFound) {
  Receipt r = sample_receipt();
  r.protocol.planned = {{"sq2048", "bf16", "TN"}, {"dec_m16_12288", "fp16", "TN"}, {"sq16384", "bf16", "TN"}};
  r.skipped = {Skipped{"sq16384 bf16 TN 16384x16384x16384 lda=16384 ldb=16384 ldc=16384", "skipped by --max-size"}};
  EXPECT_TRUE(check(json(r)).empty()) << joined(check(json(r)));
  EXPECT_EQ(json(r).get<Receipt>().protocol.planned, r.protocol.planned);  // written and read back

  Receipt cut = r;
  cut.results.erase(cut.results.begin());
  EXPECT_TRUE(Reports(check(json(cut)), {"1 planned case is in neither the results nor the skipped: sq2048 bf16 TN"}));

  Receipt extra = r;
  extra.protocol.planned.erase(extra.protocol.planned.begin() + 1);
  EXPECT_TRUE(Reports(check(json(extra)), {"1 result was not planned: dec_m16_12288 fp16 TN"}));

  Receipt many = r;  // an interrupted run: one line, the first few cases
  for (int i = 0; i < 5; ++i) many.protocol.planned.push_back({"late" + std::to_string(i), "bf16", "TN"});
  const std::vector<std::string> found = check(json(many));
  EXPECT_TRUE(Reports(found, {"5 planned cases are in neither", "late0 bf16 TN, late1 bf16 TN, late2 bf16 TN and 2 more"}));
  EXPECT_EQ(found.size(), 1u) << joined(found);

  json old = json(r);
  old["protocol"].erase("planned");
  EXPECT_TRUE(check(old).empty()) << joined(check(old));
}

TEST(Check, NotAnObject) { EXPECT_TRUE(Reports(check(json::array()), {"not a JSON object"})); }

TEST(Check, WrongSchema) {
  json j = sample();
  j["schema"] = "tilewise.receipt/0";
  EXPECT_TRUE(Reports(check(j), {"schema is 'tilewise.receipt/0'", "expected 'tilewise.receipt/1'"}));
}

TEST(Check, MissingSchema) {
  json j = sample();
  j.erase("schema");
  EXPECT_TRUE(Reports(check(j), {"missing field 'schema'"}));
}

TEST(Check, MissingFieldIsMalformed) {
  json j = sample();
  arm0(j).erase("us_median");
  EXPECT_TRUE(Reports(check(j), {"malformed", "us_median"}));
}

TEST(Check, BadEnumInsideIsMalformed) {
  json j = sample();
  j["results"][1]["problem"]["dtype"] = "fp64";
  EXPECT_TRUE(Reports(check(j), {"malformed", "fp64"}));
}

TEST(Check, ChangedTflops) {
  json j = sample();
  arm0(j)["tflops"] = arm0(j)["tflops"].get<double>() * 1.05;
  EXPECT_TRUE(Reports(check(j), {"results[0] sq2048", "[cublaslt]", "tflops", "does not match its samples"}));
}

TEST(Check, ChangedUsMedian) {
  json j = sample();
  arm0(j)["us_median"] = 25.0;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "us_median 25 does not match its samples (26)"}));
}

TEST(Check, ChangedGbps) {
  json j = sample();
  j["results"][1]["arms"][1]["gbps"] = 5000.0;
  EXPECT_TRUE(Reports(check(j), {"results[1] dec_m16_12288", "[cublaslt-default]", "gbps 5000 does not match"}));
}

TEST(Check, ChangedSpeedupRatio) {
  json j = sample();
  j["results"][0]["comparisons"][0]["speedup"] = 1.5;
  EXPECT_TRUE(Reports(check(j), {"comparison cublaslt vs cublaslt-default says 1.5x", "but the samples say 1.058x"}));
}

TEST(Check, FlippedClaim) {
  json j = sample();
  j["results"][0]["comparisons"][0]["claim"] = "slower";
  EXPECT_TRUE(Reports(check(j), {"results[0]", "comparison cublaslt vs cublaslt-default", "'slower'", "'faster'"}));

  json k = sample();  // an overlapping pair claimed as a win
  k["results"][1]["comparisons"][0]["claim"] = "faster";
  k["results"][1]["comparisons"][0]["overlap"] = false;
  EXPECT_TRUE(Reports(check(k), {"results[1]", "'faster'", "the samples say", "'none'"}));
}

TEST(Check, TamperedVerdict) {
  Receipt r = sample_receipt();
  Prediction p;
  p.id = "P1";
  p.problem = "sq2048";
  p.dtype = "bf16";
  p.layout = "TN";
  p.metric = "us_median";
  p.arm = "cublaslt";
  p.low = 20;
  p.high = 25;
  r.preregistration = Preregistration{"protocols/x.toml", "abc123", "how fast?", {p}};
  judge(r.preregistration->predictions[0], r);
  ASSERT_EQ(r.preregistration->predictions[0].verdict, "missed high");
  EXPECT_TRUE(check(json(r)).empty()) << joined(check(json(r)));

  json j = r;
  j["preregistration"]["predictions"][0]["verdict"] = "held";  // a missed prediction reported as held
  EXPECT_TRUE(Reports(check(j), {"prediction P1", "'held'", "'missed high'"}));
  json k = r;
  k["preregistration"]["commit"] = "";
  EXPECT_TRUE(Reports(check(k), {"preregistration lacks"}));
}

// A preregistered receipt with one of its results deleted checked valid: a planned problem must be measured or
// skipped. The problems a prediction names are in the receipt itself; the rest of the plan is its protocol's.
TEST(Check, APlannedProblemInNeitherResultsNorSkippedIsNamed) {
  Receipt r = sample_receipt();
  Prediction p;
  p.id = "P1", p.problem = "sq2048", p.dtype = "bf16", p.layout = "TN", p.metric = "us_median", p.arm = "cublaslt";
  p.low = 20, p.high = 30;
  r.preregistration = Preregistration{"protocols/x.toml", "abc123", "how fast?", {p}};
  judge(r.preregistration->predictions[0], r);
  std::vector<Problem> plan;
  for (const Result& res : r.results) plan.push_back(res.problem);
  plan.push_back(make_problem("sq4096", 4096, 4096, 4096, DType::bf16, Layout::TN));
  const PlannedProblems planned = [&](const Preregistration& pre) {
    EXPECT_EQ(pre.path, "protocols/x.toml");
    return std::optional(plan);
  };
  EXPECT_TRUE(Reports(check(json(r), planned),
                      {"protocols/x.toml (commit abc123) plans sq4096 bf16 TN, which is in neither the results nor the "
                       "skipped"}));
  r.skipped.push_back({describe(plan.back()), "declined by every arm"});  // skipped: accounted for
  EXPECT_TRUE(check(json(r), planned).empty()) << joined(check(json(r), planned));

  // results[0] deleted, the prediction on it re-judged to match: the prediction names the gap without the plan,
  // and with the plan it is named once.
  Receipt cut = r;
  cut.results.erase(cut.results.begin());
  judge(cut.preregistration->predictions[0], cut);
  const std::vector<std::string> found = check(json(cut));
  EXPECT_TRUE(Reports(found, {"prediction P1: sq2048 bf16 TN is in neither the results nor the skipped"}));
  const std::vector<std::string> with_plan = check(json(cut), planned);
  EXPECT_EQ(std::count_if(with_plan.begin(), with_plan.end(),
                          [](const std::string& f) { return f.find("sq2048 bf16 TN") != std::string::npos; }),
            1)
      << joined(with_plan);
  // Where the plan cannot be known (nullopt), the receipt is judged on itself.
  Receipt unpredicted = r;
  unpredicted.results.pop_back();  // dec_m16_12288, which no prediction names
  EXPECT_TRUE(check(json(unpredicted), [](const Preregistration&) { return std::optional<std::vector<Problem>>(); })
                  .empty());
  EXPECT_TRUE(Reports(check(json(unpredicted), planned), {"plans dec_m16_12288 fp16 TN"}));
}

// A negative host-loop sample (-1) passed: the checker compared the median with the samples, not the samples with
// what a time is.
TEST(Check, ATimingSampleThatIsNotATimeIsNamed) {
  for (const auto& [field, value] : {std::pair{"host_us", -1.0}, std::pair{"us", 0.0}}) {
    json j = sample();
    arm0(j)[field][1] = value;
    Receipt r = j.get<Receipt>();
    refresh_derived(r);  // the medians recomputed, so only the sample itself is wrong
    EXPECT_TRUE(Reports(check(json(r)), {"results[0] sq2048 bf16 TN [cublaslt]", std::string(field) + " sample",
                                         "is not a time"}))
        << field;
  }
  Receipt bw = sample_receipt();
  bw.machine.read_bw.us[0] = -5;
  refresh_derived(bw);
  EXPECT_TRUE(Reports(check(json(bw)), {"machine.read_bw: us sample -5 is not a time"}));
}

TEST(Check, NoTimedReplays) {
  json j = sample();
  j["protocol"]["replays"] = 0;
  EXPECT_TRUE(Reports(check(j), {"protocol.replays = 0 must be at least 1"}));
}

TEST(Check, RepeatedComparison) {
  json j = sample();
  j["results"][0]["comparisons"].push_back(j["results"][0]["comparisons"][0]);
  EXPECT_TRUE(Reports(check(j), {"is repeated or compares an arm with itself"}));
}

TEST(Check, MissingComparison) {
  json j = sample();
  j["results"][0]["comparisons"] = json::array();
  EXPECT_TRUE(Reports(check(j), {"comparison of cublaslt against cublaslt-default is missing"}));
}

TEST(Check, ValidTrueWhileProblemsListed) {
  json j = sample();
  j["problems"] = {"something went wrong"};
  EXPECT_TRUE(Reports(check(j), {"'valid' is true but 'problems' lists 1 entry"}));
}

TEST(Check, ValidFalseWhileNoProblems) {
  json j = sample();
  j["valid"] = false;
  EXPECT_TRUE(Reports(check(j), {"'valid' is false but 'problems' lists 0 entries"}));
}

TEST(Check, InvalidReceiptThatSaysSoIsConsistent) {
  // An honest invalid receipt: what it lists is for check_file to report; check() finds nothing more.
  json j = sample();
  j["problems"] = {"something went wrong"};
  j["valid"] = false;
  const std::vector<std::string> found = check(j);
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Check, WarmupUnderTheFloor) {
  json j = sample();
  j["protocol"]["warmup_s"] = 5.0;
  EXPECT_TRUE(Reports(check(j), {"warm-up 5.00 s is under the 10 s floor"}));
  j["protocol"]["warmup_s"] = 9.99;
  EXPECT_TRUE(Reports(check(j), {"warm-up 9.99 s"}));
  j["protocol"]["warmup_s"] = 10.0;
  EXPECT_TRUE(check(j).empty()) << joined(check(j));
}

TEST(Check, ArmMarkedCorrectButOverItsBound) {
  json j = sample();
  arm0(j)["rel_err"] = 0.05;  // bf16 bound is 1e-2
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "'correct' is true but rel_err 0.05 against bound 0.01"}));
}

TEST(Check, ArmMarkedCorrectWithoutAnError) {
  json j = sample();
  arm0(j)["rel_err"] = nullptr;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "'correct' is true but rel_err null"}));
}

TEST(Check, IncorrectArmStillCarryingThroughput) {
  json j = sample();
  arm0(j)["correct"] = false;
  arm0(j)["rel_err"] = 0.05;
  const std::vector<std::string> found = check(j);
  EXPECT_TRUE(Reports(found, {"results[0] sq2048", "[cublaslt]", "an incorrect arm carries a throughput"}));
  EXPECT_TRUE(Reports(found, {"[cublaslt]", "incorrect (rel_err 0.05 > 0.01)"}));
}

TEST(Check, IncorrectArmWithoutThroughputIsStillReported) {
  // The writer did everything right (no throughput, no comparison); the receipt is still not valid.
  Receipt r = sample_receipt();
  r.results[0].arms[0].correct = false;
  r.results[0].arms[0].rel_err = 0.05;
  refresh_derived(r);
  const std::vector<std::string> found = check(json(r));
  EXPECT_TRUE(Reports(found, {"[cublaslt]", "incorrect (rel_err 0.05 > 0.01)"}));
  EXPECT_FALSE(Reports(found, {"carries a throughput"}));
}

TEST(Check, ArmThatDidNotRun) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[1].arms[0];
  a.error = "CUBLAS_STATUS_NOT_SUPPORTED";
  a.correct = false;
  a.rel_err.reset();
  refresh_derived(r);
  EXPECT_TRUE(Reports(check(json(r)), {"results[1]", "[cublaslt]", "did not run: CUBLAS_STATUS_NOT_SUPPORTED"}));
}

// An arm whose family does not take the problem is recorded as declined; the problem's other arms stand.
TEST(Check, DeclinedArmIsNotAFault) {
  Receipt r = sample_receipt();
  decline(r.results[1].arms[1], "cuBLASLt has no fp8 kernel for M = 4");  // the baseline declines: no comparison
  refresh_derived(r);
  EXPECT_TRUE(r.results[1].comparisons.empty());
  EXPECT_EQ(check(json(r)), std::vector<std::string>{});
  const json j = r;
  EXPECT_EQ(j["results"][1]["arms"][1].at("declined"), "cuBLASLt has no fp8 kernel for M = 4");
  EXPECT_FALSE(j["results"][1]["arms"][0].contains("declined"));  // written only where set
  EXPECT_EQ(j.get<Receipt>(), r);
}

TEST(Check, DeclinedArmCarryingARunIsReported) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[1];
  const std::vector<double> us = a.us;
  decline(a, "the gemv family takes M = 1..16");
  a.us = us;  // timings of a run it says it never made
  a.host_us = us;
  refresh_derived(r);
  EXPECT_TRUE(Reports(check(json(r)), {"results[0] sq2048", "[cublaslt-default]", "declined (the gemv family takes M = 1..16)",
                                       "carries a run's error, check or timings"}));
}

TEST(Check, ArmMissingFromAResult) {
  json j = sample();
  j["results"][1]["arms"].erase(1);
  EXPECT_TRUE(Reports(check(j), {"results[1] dec_m16_12288", "arm 'cublaslt-default' is missing"}));
}

TEST(Check, ArmAppearingTwice) {
  json j = sample();
  j["results"][0]["arms"].push_back(j["results"][0]["arms"][0]);
  EXPECT_TRUE(Reports(check(j), {"arm 'cublaslt' appears twice"}));
}

TEST(Check, LoosenedBound) {
  json j = sample();
  arm0(j)["bound"] = 0.05;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "bound 0.05 is not the tool's bound 0.01 for bf16"}));
  // fp16's bound is tighter; recording bf16's for it is a loosening too.
  json k = sample();
  k["results"][1]["arms"][0]["bound"] = 1e-2;
  EXPECT_TRUE(Reports(check(k), {"dec_m16_12288", "bound 0.01 is not the tool's bound 0.005 for fp16"}));
}

TEST(Check, TimingPathsDisagreeOnALongKernel) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[1];  // the baseline, so the comparison stays a clean "faster"
  a.us = {100, 100, 100};
  a.host_us = {130, 130, 130};
  refresh_derived(r);
  const std::vector<std::string> found = check(json(r));
  ASSERT_EQ(found.size(), 1u) << joined(found);
  EXPECT_TRUE(Reports(found, {"results[0] sq2048", "[cublaslt-default]", "timing paths disagree",
                              "graph replay 100.00 us, host loop 130.00 us (30% apart within a repeat"}));
}

TEST(Check, TimingPathsAreComparedWithinEachRepeat) {
  // A power-cap step inside the second repeat, between its two paths: by median 276.6 against 309.1 us (12%),
  // within the repeats 2%, 12% and 1%.
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[1];
  a.us = {275.3, 276.6, 305.9};
  a.host_us = {282.0, 309.1, 309.1};
  refresh_derived(r);
  EXPECT_TRUE(check(json(r)).empty()) << joined(check(json(r)));
  // The same samples paired the other way round are 8-12% apart in every repeat: reported.
  a.host_us = {309.1, 309.1, 282.0};
  refresh_derived(r);
  EXPECT_TRUE(Reports(check(json(r)), {"timing paths disagree"}));
}

TEST(Check, TimingPathsMayDisagreeOnAShortKernel) {
  // Under long_kernel_us launch cost dominates the host loop; a gap there is expected, not a problem.
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[1];
  a.us = {40, 40, 40};
  a.host_us = {60, 60, 60};
  refresh_derived(r);
  const std::vector<std::string> found = check(json(r));
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Check, TimingPathsWithinToleranceAgree) {
  Receipt r = sample_receipt();
  ArmResult& a = r.results[0].arms[1];
  a.us = {100, 100, 100};
  a.host_us = {109, 109, 109};
  refresh_derived(r);
  const std::vector<std::string> found = check(json(r));
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Check, ClockSag) {
  json j = sample();
  arm0(j)["clock"]["sm_mhz_median"] = 900;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "SM clock sagged to a median 900 MHz against the run's 1700 MHz"}));
}

// A power-capped big GEMM runs well under the boost clock of a run's small problems; judged against the clock the
// warm-up sustained under heavy load, it is no sag, and a real sag under that clock still is.
TEST(Check, ClockSagIsJudgedAgainstTheWarmUpsSustainedClockWhereRecorded) {
  json j = sample();
  j["clocks"]["during"]["sm_mhz_median"] = 1965;
  j["clocks"]["warmup"] = j["clocks"]["during"];
  j["clocks"]["warmup"]["sm_mhz_median"] = 1450;
  arm0(j)["clock"]["sm_mhz_median"] = 1400;
  std::vector<std::string> found = check(j);
  EXPECT_TRUE(found.empty()) << joined(found);
  arm0(j)["clock"]["sm_mhz_median"] = 1000;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "sagged to a median 1000 MHz against the warm-up's sustained 1450 MHz"}));
  j["clocks"].erase("warmup");  // an older receipt: the timed regions' median stays the reference
  arm0(j)["clock"]["sm_mhz_median"] = 1400;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "against the run's 1965 MHz"}));
}

TEST(Check, ModestClockDipIsNotASag) {
  json j = sample();
  arm0(j)["clock"]["sm_mhz_median"] = 1300;  // above 0.75 x 1700 = 1275
  const std::vector<std::string> found = check(j);
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Check, ClocksNotSampled) {
  json j = sample();
  j["clocks"]["available"] = false;
  j["clocks"]["unavailable_reason"] = "NVML not found";
  EXPECT_TRUE(Reports(check(j), {"clocks were not sampled: NVML not found"}));
}

TEST(Check, WrongNumberOfSamplesForRepeats) {
  json j = sample();
  j["protocol"]["repeats"] = 4;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "3 graph and 3 host samples for 4 repeats"}));
}

TEST(Check, ReadBandwidthNotMatchingItsSamples) {
  json j = sample();
  j["machine"]["read_bw_gbps"] = 4800.0;
  EXPECT_TRUE(Reports(check(j), {"machine.read_bw_gbps 4800 does not match its samples (4227.33)"}));
}

TEST(Check, ReadBandwidthNotMeasured) {
  json j = sample();
  j["machine"]["read_bw"]["us"] = json::array();
  j["machine"]["read_bw_gbps"] = 0.0;
  EXPECT_TRUE(Reports(check(j), {"the read bandwidth was not measured"}));
}

TEST(Check, ColdRunUnderTheProtocolsWorkingSet) {
  json j = sample();
  j["protocol"]["cold"] = true;
  j["protocol"]["working_set_bytes"] = 4 * j["machine"]["l2_bytes"].get<int64_t>();  // 200 MiB
  const std::vector<std::string> found = check(j);
  // sq2048's one buffer set is 24 MiB.
  EXPECT_TRUE(Reports(found, {"results[0] sq2048", "cold working set 25165824 B is under the protocol's 209715200 B"}));
}

// A cold run done right: every problem rotates enough buffer sets to cover 4x the L2.
Receipt cold_sample() {
  Receipt r = sample_receipt();
  r.protocol.cold = true;
  r.protocol.working_set_bytes = 4 * r.machine.l2_bytes;
  r.protocol.rotation_sets = 0;
  for (Result& res : r.results) {
    const int64_t set = rotation_set_bytes(res.problem);
    res.rotation_sets = int((r.protocol.working_set_bytes + set - 1) / set);
    res.working_set_bytes = res.rotation_sets * set;
    r.protocol.rotation_sets = std::max(r.protocol.rotation_sets, res.rotation_sets);
  }
  return r;
}

TEST(Check, ColdRunCoveringItsWorkingSetIsValid) {
  const Receipt r = cold_sample();
  EXPECT_EQ(r.results[0].rotation_sets, 9);  // 200 MiB / 24 MiB sets
  const std::vector<std::string> found = check(json(r));
  EXPECT_TRUE(found.empty()) << joined(found);
}

TEST(Check, ColdRunCannotLowerTheProtocolsWorkingSet) {
  // The 4x-L2 floor is the tool's, not the receipt's: a cold receipt that records a smaller target is caught.
  Receipt r = cold_sample();
  r.protocol.working_set_bytes = 1 << 20;
  for (Result& res : r.results) {
    res.rotation_sets = 1;
    res.working_set_bytes = rotation_set_bytes(res.problem);
  }
  r.protocol.rotation_sets = 1;
  EXPECT_TRUE(Reports(check(json(r)), {"cold", "protocol.working_set_bytes 1048576", "4x the L2 (209715200 B)"}));
}

TEST(Check, NullRangeWithAMedianIsReported) {
  json j = sample();
  arm0(j)["us_max"] = nullptr;
  const std::vector<std::string> found = check(j);
  EXPECT_TRUE(Reports(found, {"[cublaslt]", "us_max null does not match its samples (26.1)"}));
  EXPECT_TRUE(Reports(found, {"comparison cublaslt vs cublaslt-default", "'faster'", "the samples say", "'none'"}));
}

TEST(Check, NegativeErrorIsNotCorrect) {
  json j = sample();
  arm0(j)["rel_err"] = -1e-3;
  EXPECT_TRUE(Reports(check(j), {"[cublaslt]", "'correct' is true but rel_err -0.001"}));
}

TEST(Check, WarmRunWithRotation) {
  json j = sample();
  const int64_t set_bytes = j["results"][0]["working_set_bytes"].get<int64_t>();
  j["results"][0]["rotation_sets"] = 3;
  j["results"][0]["working_set_bytes"] = 3 * set_bytes;
  j["protocol"]["rotation_sets"] = 3;
  EXPECT_TRUE(Reports(check(j), {"results[0] sq2048", "a warm run uses one buffer set, not 3"}));
}

TEST(Check, WorkingSetNotMatchingRotation) {
  json j = sample();
  j["results"][1]["working_set_bytes"] = 12345;
  EXPECT_TRUE(Reports(check(j), {"results[1]", "working_set_bytes 12345 is not rotation_sets x set bytes"}));
}

TEST(Check, ReferenceCheckFailing) {
  json j = sample();
  j["results"][1]["reference"]["max_err"] = 3e-3;
  j["results"][1]["reference"]["ok"] = false;
  const std::vector<std::string> found = check(j);
  EXPECT_TRUE(Reports(found, {"results[1] dec_m16_12288", "the GPU reference failed its fp64 check (error 0.003)"}));
  EXPECT_FALSE(Reports(found, {"does not match its error"}));
}

TEST(Check, ReferenceClaimingOkOverItsBound) {
  json j = sample();
  j["results"][1]["reference"]["max_err"] = 3e-3;  // still ok = true
  EXPECT_TRUE(Reports(check(j), {"results[1]", "reference.ok = true does not match its error 0.003"}));
}

TEST(Check, InvalidProblemIsReported) {
  json j = sample();
  j["results"][0]["problem"]["lda"] = 100;
  EXPECT_TRUE(Reports(check(j), {"results[0] sq2048", "invalid problem", "lda = 100"}));
}

TEST(Check, BaselineNotAmongArms) {
  json j = sample();
  j["protocol"]["baseline"] = "torch";
  EXPECT_TRUE(Reports(check(j), {"baseline arm 'torch' is not among protocol.arms"}));
}

// ---- check_file ----------------------------------------------------------------------------------------------

class CheckFile : public testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  testkit::TempDir temp_;
  const fs::path& dir_ = temp_.path();
};

TEST_F(CheckFile, ValidReceipt) {
  const std::string path = (dir_ / "ok.json").string();
  write_file(sample_receipt(), path);
  const FileVerdict v = check_file(path);
  EXPECT_EQ(v.path, path);
  EXPECT_TRUE(v.valid) << joined(v.problems);
  EXPECT_TRUE(v.problems.empty());
  EXPECT_EQ(v.results, 2u);
}

TEST_F(CheckFile, NonJsonFile) {
  const FileVerdict v = check_file(write("bad.json", "{ \"schema\": "));
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(Reports(v.problems, {"bad.json:1:13: not valid JSON"}));
}

// A number past the range of a double is the parser's out_of_range, not a parse error: it once escaped the checker
// and aborted `tilewise check` (losing the lines printed for the files before it).
TEST_F(CheckFile, NumberBeyondDoubleRangeIsReportedNotThrown) {
  const FileVerdict v = check_file(write("huge.json", R"({"schema": "tilewise.receipt/1", "x": 1e400})"));
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(Reports(v.problems, {"huge.json: not valid JSON", "1e400"}));
}

TEST_F(CheckFile, FolderAndFifoAreRefusedByName) {
  fs::create_directory(dir_ / "folder");
  EXPECT_TRUE(Reports(check_file((dir_ / "folder").string()).problems, {"is a folder, not a file"}));
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(Reports(check_file(fifo).problems, {"is a FIFO, not a file"})) << "and it did not wait for a writer";
}

TEST_F(CheckFile, MissingFile) {
  const FileVerdict v = check_file((dir_ / "absent.json").string());
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(Reports(v.problems, {"absent.json: cannot open (No such file or directory)"}));
}

TEST_F(CheckFile, ReportsProblemsRecordedInTheFile) {
  Receipt r = sample_receipt();
  r.problems = {"results[0] sq2048 bf16 TN [cublaslt]: SM clock sagged", "another recorded problem"};
  r.valid = false;
  const std::string path = (dir_ / "recorded.json").string();
  write_file(r, path);
  const FileVerdict v = check_file(path);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.problems, r.problems);
  EXPECT_EQ(v.results, 2u);
}

TEST_F(CheckFile, RecordedAndFoundProblemsAreListedOnce) {
  Receipt r = sample_receipt();
  r.protocol.warmup_s = 5;
  r.problems = check(json(r));  // what an honest writer records: the checker's own findings
  r.valid = false;
  ASSERT_TRUE(Reports(r.problems, {"warm-up 5.00 s"}));
  const std::string path = (dir_ / "warm.json").string();
  write_file(r, path);
  const FileVerdict v = check_file(path);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.problems, r.problems);
}

TEST_F(CheckFile, FoundProblemsAreAddedToRecordedOnes) {
  Receipt r = sample_receipt();
  r.problems = {"recorded"};
  r.valid = false;
  r.protocol.warmup_s = 5;
  const std::string path = (dir_ / "both.json").string();
  write_file(r, path);
  const FileVerdict v = check_file(path);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.problems.size(), 2u) << joined(v.problems);
  EXPECT_EQ(v.problems[0], "recorded");
  EXPECT_TRUE(Reports(v.problems, {"warm-up 5.00 s is under the 10 s floor"}));
}

}  // namespace
}  // namespace tilewise::receipt
