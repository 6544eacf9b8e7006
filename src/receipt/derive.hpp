#pragma once
// Every number a receipt derives from its samples is computed here, once: the bench calls these to write a
// receipt and the checker calls them again to verify it, so the two cannot disagree on a definition.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "receipt/receipt.hpp"

namespace tilewise::receipt {

double median(std::vector<double> v);  // of a non-empty vector

// Error bound on ||out - ref|| / ||ref|| for an output type: rounding the output dominates (bf16 keeps 8 bits,
// fp16 11), with room for a split-K reduction done in the output type.
double correctness_bound(DType input);
bool is_correct(const std::optional<double>& rel_err, double bound);

// Fills the summary fields of an arm from its samples; an incorrect arm or one without samples gets none. An arm
// that reports its weight bytes also gets its weight-stream rate, and that rate as a fraction of `read_bw_gbps` (the
// read bandwidth measured in the same run; none when it is not positive).
void derive(ArmResult& arm, const Problem& p, double read_bw_gbps = 0);
Comparison compare(const ArmResult& arm, const ArmResult& baseline);
// r's arm `name` where it ran correctly and has a median; with `with_options`, where r has no arm of that very name,
// also its one arm `name:anything` ("selected" takes "selected:tune:db.json"). Null otherwise. Throws where two such
// arms could be meant ("selected:floor" beside "selected:floor:refit.json" and "selected:floor:other.json").
const ArmResult* timed_arm(const Result& r, const std::string& name, bool with_options = false);
// Whether `arm` is `name` with options ("selected:tune:db.json" of "selected"): what timed_arm's `with_options` takes.
bool has_options_of(const std::string& arm, const std::string& name);
// Every arm name in r's results, sorted (for a message that lists what a receipt has).
std::set<std::string> arm_names(const Receipt& r);
// Whether samples `a`'s range lies wholly below `b`'s: compare's "faster" claim, as the tuners judge a candidate.
bool strictly_faster(const std::vector<double>& a, const std::vector<double>& b);
double read_bw_gbps(const ReadBandwidth& bw);
int64_t rotation_set_bytes(const Problem& p);  // A + B + C as allocated

ClockSummary summarize(const std::vector<ClockSample>& samples);
std::vector<std::string> reason_names(uint64_t reasons);

// How far the host loop's time is from graph replay's, as a fraction of graph replay's: the median over repeats of
// each repeat's own gap, where both paths have one sample a repeat (each repeat times the two back to back), else the
// gap between their medians. Paired, a power-cap step between two repeats moves both paths alike: a 276 us fp8 GEMM
// whose clock dropped from 1920 MHz after its third repeat read 276 us by graph replay and 306 us by host loop by
// median, 1-3% apart within each repeat.
double timing_paths_gap(const ArmResult& arm);

// The checker's fixed thresholds. They live in code, not in the receipt, so a receipt cannot loosen them.
inline constexpr double warmup_floor_s = 10.0;
inline constexpr double long_kernel_us = 50.0;        // timing paths must agree from here up...
inline constexpr double timing_paths_tolerance = 0.10;  // ...within this fraction of the graph-replay time
inline constexpr double clock_sag_fraction = 0.75;    // arm median SM clock under this x the run's median: sagged
inline constexpr double reference_bound = 1e-4;       // |ref32 - ref64| / sum|a b| on sampled elements
inline constexpr int64_t cold_l2_multiple = 4;        // a cold run's working set covers at least this x the L2

}  // namespace tilewise::receipt
