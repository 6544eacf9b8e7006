#pragma once
// An arm is one way of computing a problem that the harness measures: a kernel family with a chosen
// configuration. The harness owns correctness and timing; an arm only chooses its configuration and launches.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "device/timing.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::bench {

// What an arm may use while it chooses its configuration for one problem.
struct Workbench {
  const Problem& problem;
  device::Operands& operands;
  const device::Reference& reference;
  cudaStream_t stream;
  double graph_target_ms;
  int replays;
  int selection_rounds;  // interleaved timing rounds when an arm chooses among candidates
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
};

// Arms by name: "cublaslt" (every heuristic candidate checked and timed, the fastest wins) and
// "cublaslt-default" (the heuristic's first candidate, what torch.mm runs). Throws Error for an unknown name.
std::unique_ptr<Arm> make_arm(const std::string& name);
std::vector<std::string> known_arms();

}  // namespace tilewise::bench
