#pragma once
// The receipt: everything a reader needs to recompute every figure the tool prints. Schema "tilewise.receipt/1".
// The writer fills these structs; receipt/check.hpp validates the JSON they serialize to.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/problem.hpp"

namespace tilewise::receipt {

inline constexpr const char* schema = "tilewise.receipt/1";

struct Tool {
  std::string name = "tilewise";
  std::string version, commit;
  bool dirty = true;
  // The kernel sources the run compiled (jit::kernel_sources_identity): their digest, and the TILEWISE_KERNELS_DIR
  // folder when one stood in for the library's own. Empty in receipts written before they were recorded, and in those
  // the Python runners write (bench/peers/).
  std::string kernel_sources, kernel_sources_dir;
  bool operator==(const Tool&) const = default;
};

// A timed read of a large buffer, measured in the same run as the problems.
struct ReadBandwidth {
  int64_t bytes = 0;
  std::vector<double> us;  // one per timed pass
  bool operator==(const ReadBandwidth&) const = default;
};

struct Machine {
  std::string gpu, cc, driver, cuda_runtime, cublaslt, nvrtc;
  int sm_count = 0;
  int64_t l2_bytes = 0, smem_per_block_optin = 0, memory_bytes = 0;
  int sm_clock_max_mhz = 0, mem_clock_max_mhz = 0;
  double power_limit_w = 0;
  double read_bw_gbps = 0;  // bytes / median(us) of read_bw
  ReadBandwidth read_bw;
  bool operator==(const Machine&) const = default;
};

// One case a run planned: a suite line in one dtype and layout.
struct PlannedCase {
  std::string name, dtype, layout;
  bool operator==(const PlannedCase&) const = default;
};

struct Protocol {
  double warmup_s = 0;
  int repeats = 0;
  bool cold = false;
  int rotation_sets = 0;          // the most any problem used; each result has its own
  int64_t working_set_bytes = 0;  // the least each problem's rotation must cover (4x L2 cold, 0 warm)
  std::string timing = "graph-replay+host-loop";
  std::vector<std::string> arms;
  std::string baseline;  // the arm every other arm is compared with
  uint64_t seed = 0;
  double graph_target_ms = 0;  // each graph replay spans about this long
  int replays = 0;             // timed graph replays per repeat; the repeat's figure is their median
  int selection_rounds = 0;    // interleaved rounds in which an arm times its candidates
  double rewarm_ms = 0;        // re-warm before each problem: the baseline arm's own graph replayed this long (the
                               // receipt's notes say so; receipts without that note re-warmed with the 8192^3 heater)
  // Every case the run planned, each of which it measured or skipped, so that a result taken out of the file, or one
  // put in, is found without the suites it came from (empty in receipts written before it was recorded).
  std::vector<PlannedCase> planned;
  bool operator==(const Protocol&) const = default;
};

struct ClockSample {
  double t_s = 0;  // seconds since the run started
  int sm_mhz = 0, mem_mhz = 0;
  double power_w = 0;
  int temp_c = 0;
  uint64_t reasons = 0;  // NVML clock-event (throttle) reason bits
  bool operator==(const ClockSample&) const = default;
};

struct ClockSummary {
  int samples = 0;
  int sm_mhz_min = 0, sm_mhz_median = 0, sm_mhz_max = 0;
  double power_w_median = 0, power_w_max = 0;
  int temp_c_max = 0;
  std::vector<std::string> reasons;  // union of reasons seen
  bool operator==(const ClockSummary&) const = default;
};

struct Clocks {
  bool available = false;
  std::string unavailable_reason;
  ClockSample before, after;
  ClockSummary during;  // over every sample taken inside a timed region
  // Over the second half of the warm-up: the clock the GPU sustains under the heaviest load of the run, the
  // reference a timed region's clock is judged against (absent from receipts written before it was recorded).
  ClockSummary warmup;
  bool operator==(const Clocks&) const = default;
};

// One candidate the vendor heuristic offered, as checked and timed while choosing the `cublaslt` arm.
struct Candidate {
  nlohmann::json config;
  bool correct = false;
  std::optional<double> rel_err;
  std::optional<double> us;  // graph-replay median while choosing; absent when incorrect or failed
  std::string error;
  bool operator==(const Candidate&) const = default;
};

struct ReferenceCheck {
  int samples = 0;
  double max_err = 0;  // max |ref32 - ref64| / sum|a_ik b_kj| over sampled elements
  double bound = 0;
  bool ok = false;
  bool operator==(const ReferenceCheck&) const = default;
};

struct ArmResult {
  std::string arm;
  nlohmann::json config;
  std::string config_text;
  std::string error;  // why the arm could not run, if it could not
  // Why the arm's family does not take this problem (a shape, type or layout outside it): the arm is neither run nor
  // a fault, and the problem's other arms are measured. Written only when set.
  std::string declined;
  bool correct = false;
  std::optional<double> rel_err, max_abs_err;
  double bound = 0;
  int launches = 0, host_launches = 0;  // per graph replay / per host loop
  std::vector<double> us, host_us;      // one median per repeat
  std::optional<double> us_median, us_min, us_max, host_us_median, tflops, gbps;
  ClockSummary clock;
  std::vector<Candidate> candidates;
  // What the arm's output was judged against: "problem" (the result's reference, from the problem's A and B), or the
  // arm's own reference, e.g. "dequantized q8_0 weights of set 0" for a quantized GEMV, with its fp64 check.
  std::string reference = "problem";
  std::optional<ReferenceCheck> reference_check;
  // An arm that keeps its own weight copies rotates its own sets (0: the result's) over this many bytes.
  int rotation_sets = 0;
  int64_t working_set_bytes = 0;
  // Weight bytes one launch streams (decode GEMV arms; 0: not reported), and the derived stream rate: weight_bytes
  // over us_median, and that as a fraction of the read bandwidth measured in the same run.
  int64_t weight_bytes = 0;
  std::optional<double> weight_gbps, weight_bw_fraction;
  // A plain read of the same weight bytes over the same rotation, timed right after the arm in each repeat
  // (device/plain_read.hpp; empty where it was not timed), its median, and that median over the arm's: the part of
  // the arm's time a read of its bytes alone takes, launch and ramp included (1: as fast as the plain read).
  std::vector<double> plain_read_us;
  std::optional<double> plain_read_us_median, plain_read_ratio;
  bool operator==(const ArmResult&) const = default;
};

// Claim rule: a speedup is claimed only when the arms' ranges over the repeats do not overlap.
struct Comparison {
  std::string arm, baseline;
  double speedup = 0;  // baseline us_median / arm us_median
  bool overlap = true;
  std::string claim;  // "faster", "slower" or "none"
  bool operator==(const Comparison&) const = default;
};

struct Result {
  Problem problem;
  // The suite the problem's line came from (core/suite.hpp, suite_name); empty in receipts written before it was
  // recorded, which name their suites only in the command.
  std::string suite;
  int rotation_sets = 1;
  int64_t working_set_bytes = 0;
  uint64_t seed = 0;
  ReferenceCheck reference;
  std::vector<ArmResult> arms;
  std::vector<Comparison> comparisons;
  bool operator==(const Result&) const = default;
};

struct Skipped {
  std::string problem, reason;
  bool operator==(const Skipped&) const = default;
};

// A preregistered prediction (protocols/*.toml) and the verdict the tool reached on it.
struct Prediction {
  std::string id;
  std::string problem, dtype, layout;  // which result it is about
  std::string metric;                  // us_median, tflops, gbps, bandwidth_fraction, speedup, weight_gbps, weight_bw_fraction
  std::string arm, baseline;           // baseline only for speedup (baseline us_median / arm us_median)
  double low = 0, high = 0;            // the predicted range, inclusive
  std::string falsifier;
  std::optional<double> measured;
  std::string verdict;  // "held", "missed high", "missed low" or "not measured"
  std::string reason;   // why not measured
  std::string claim;    // speedup only: "faster", "slower" or "none" by the claim rule
  bool operator==(const Prediction&) const = default;
};

struct Preregistration {
  std::string path, commit;  // the protocol file and the commit that froze it
  std::string question;
  std::vector<Prediction> predictions;
  bool operator==(const Preregistration&) const = default;
};

struct Receipt {
  std::string schema_id = schema;
  std::string created;  // UTC, ISO 8601
  std::string command;
  std::vector<std::string> notes;
  Tool tool;
  Machine machine;
  Protocol protocol;
  Clocks clocks;
  std::vector<Result> results;
  std::vector<Skipped> skipped;
  std::optional<Preregistration> preregistration;  // present when the run followed a protocol file
  std::vector<std::string> problems;
  bool valid = false;
  bool operator==(const Receipt&) const = default;
};

void to_json(nlohmann::json& j, const Receipt& r);
void from_json(const nlohmann::json& j, Receipt& r);

// Writes atomically (temporary file, then rename), so a crash never leaves a half-written receipt behind.
void write_file(const Receipt& r, const std::string& path);
Receipt read_file(const std::string& path);

}  // namespace tilewise::receipt
