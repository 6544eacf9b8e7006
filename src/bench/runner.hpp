#pragma once
// The protocol runner behind `tilewise bench`: suites x dtypes x layouts, every arm checked before it is timed,
// arms interleaved within each repeat, clocks sampled while timing, and a receipt written after every problem.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::bench {

struct Options {
  std::vector<std::string> suites;
  std::vector<std::string> only;  // problem names to keep; empty keeps all
  std::vector<DType> dtypes{DType::bf16};
  std::vector<Layout> layouts{Layout::TN};
  std::vector<std::string> arms{"cublaslt", "cublaslt-default"};
  std::string baseline = "cublaslt-default";
  bool cold = false;
  int repeats = 10;
  int replays = 3;
  int selection_rounds = 5;
  double warmup_s = 10.0;
  double rewarm_ms = 100.0;
  double graph_target_ms = 2.0;
  int64_t pad = 0;  // extra elements on every leading dimension
  uint64_t seed = 0;
  std::string output;
  std::string command;
  // From a protocol file: its predictions are judged into the receipt (receipt/verdict.hpp).
  std::optional<receipt::Preregistration> preregistration;
};

// Called once a problem's measurement is done (or skipped), for progress on the terminal.
using ProgressFn = std::function<void(size_t done, size_t total, const receipt::Result* result, const std::string& note)>;

// The problems a run measures, in order: each ends in its receipt's results or its skipped. Throws Error for a suite
// that cannot be read or an `only` name no suite holds.
std::vector<Problem> planned_problems(const Options& options);

// Every file a run reads: its suites, its protocol file, and each arm's (Arm::inputs: a database, a floor, a
// first-use tuning database). Its receipt must be none of them (files::refuse_input_as_output). Throws Error for an
// unknown arm.
std::vector<std::string> input_files(const Options& options);

// Runs the whole protocol; writes the receipt to options.output after every problem (atomically), and returns the
// final receipt. Throws Error for bad options or when no GPU is usable.
receipt::Receipt run(const Options& options, const ProgressFn& progress);

}  // namespace tilewise::bench
