#pragma once
// An arm is one way of computing a problem that the harness (src/bench/) measures: a kernel family with a chosen
// configuration. Each family names its own arms (families/family.hpp); the harness owns correctness and timing, an
// arm only chooses its configuration and launches.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "device/timing.hpp"
#include "core/suite.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::families {

// What an arm may use while it chooses its configuration for one problem.
struct Workbench {
  const Problem& problem;
  device::Operands& operands;
  const device::Reference& reference;
  cudaStream_t stream;
  double graph_target_ms;
  int replays;
  int selection_rounds;  // interleaved timing rounds when an arm chooses among candidates
  bool cold = false;      // an arm that keeps its own weight copies rotates enough of them (rotation_sets below)
  int64_t l2_bytes = 0;
  // The suite's orientation: which operand holds the weights an arm on quantized weights packs (A in nn.Linear's).
  Orientation orientation = Orientation::column_major;
};

// Poisons C of set 0, launches once, and judges the output against the reference: the one correctness gate.
device::OutputError checked_run(const Workbench& wb, const device::Launch& launch);

class Arm {
 public:
  virtual ~Arm() = default;
  virtual const std::string& name() const = 0;
  // Chooses the configuration for wb.problem; throws Error when the arm cannot run the problem.
  virtual void prepare(const Workbench& wb) = 0;
  virtual void launch(int set, cudaStream_t stream) const = 0;
  virtual nlohmann::json config() const = 0;
  virtual std::string config_text() const = 0;
  // The alternatives the arm checked and timed while choosing, if it chose among several.
  virtual std::vector<receipt::Candidate> candidates() const { return {}; }
  // The files the arm reads (or, tuning on first use, keeps), as its name gives them: a run's output must be none
  // of them (bench::input_files).
  virtual std::vector<std::string> inputs() const { return {}; }

  // Hooks for arms that compute with weights of their own (the quantized decode GEMV arms); the defaults describe an
  // arm that reads the problem's operands as they are.
  // The weights the arm computes with in place of set 0's B (or A, device::Replaced), dequantized, alive while the arm
  // is. The runner judges the arm against a reference computed from them and records reference_name().
  virtual device::Replaced judged_weights() const { return {}; }
  virtual std::string reference_name() const { return "problem"; }
  // Sets the arm is timed over: launch(set) gets set in [0, rotation_sets()); 0 means the operands' count. An arm
  // whose weights are smaller than B keeps more copies so a cold working set still covers 4x the L2.
  virtual int rotation_sets() const { return 0; }
  virtual int64_t working_set_bytes() const { return 0; }  // bytes its own rotation covers (with rotation_sets)
  virtual int64_t weight_bytes() const { return 0; }       // weight bytes one launch streams (0: not reported)
};

}  // namespace tilewise::families
