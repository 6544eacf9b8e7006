#pragma once
// A kernel family as every layer above sees it (docs/design.md): its configurations as text, which of them can run a
// problem, its own rule, building one into a kernel, its parameters as the tuner's search space, and its arms for the
// harness. Selection, the tuner, the harness and the command line ask the registry (families/registry.hpp) for a
// family by name and speak to it only through this interface, so adding a family touches none of them.
//
// Configurations travel as the family's canonical text ("block_m=128,...": families/fields.hpp), which is what a
// database, a campaign and a receipt keep; each family parses its own.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"
#include "device/scratch.hpp"
#include "families/arm.hpp"
#include "families/fields.hpp"
#include "families/space.hpp"
#include "jit/cache.hpp"

namespace tilewise::cublaslt {
class Context;
}

namespace tilewise::families {

// What building a family's kernels may need of the machine it runs on.
struct Resources {
  int sm_count = 132;
  // cuBLASLt's handle and its one workspace, asked for only when a cuBLASLt kernel is built.
  std::function<const cublaslt::Context&()> vendor;
  // The stream's stream-K scratch, shared by the kernels built for that stream; without one a kernel holds its own.
  device::StreamScratch* scratch = nullptr;
};

// One problem's kernel, built and ready to launch on any operands of that problem. One stream at a time.
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void run(const void* A, const void* B, void* C, cudaStream_t stream) = 0;
  // The canonical configuration it runs (cuBLASLt's heuristic choice names its own when built).
  const std::string& config() const { return config_; }

 protected:
  explicit Kernel(std::string config) : config_(std::move(config)) {}
  std::string config_;
};

// A kernel or why it was not built.
struct Built {
  std::unique_ptr<Kernel> kernel;
  std::string error;
};

// One instantiation the JIT compiles for a configuration, and the dynamic shared memory it launches with.
struct Instantiation {
  jit::KernelBuild build;
  int dynamic_shared_bytes = 0;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;

  // --- Configurations as text. Each throws Error naming the field and the value where `config` does not parse.
  virtual std::string canonical(std::string_view config) const = 0;
  virtual std::string describe(std::string_view config) const = 0;  // one line for people
  // The tuner's form: the canonical fields, with every field the tuner's groups open written out.
  virtual Fields tuner_fields(std::string_view config) const { return parse_fields(canonical(config)); }
  // The fields every configuration has in the tuner's form, for a command line to check names before any GPU work.
  virtual std::vector<std::string> field_names() const = 0;

  // --- Feasibility. Why `config` cannot run p as tilewise::gemm passes it (the problem's own operands), as far as
  // the CPU can tell; nothing when it may. Throws Error where `config` does not parse.
  virtual std::optional<std::string> infeasible(std::string_view config, const Problem& p, int sm_count) const = 0;
  // A configuration tuned for a problem of p's token bucket (select/database.hpp) as it serves p: unchanged, or with
  // what the family's configuration holds of the problem itself (the GEMV's token count) made p's.
  virtual std::string for_problem(std::string_view config, const Problem& p) const { return canonical(config); }

  // --- Rules. The family's own rule for p (the floor weighs it; the arm named as the family runs it), none where the
  // family has no rule of its own or none for p. cuBLASLt, whose rule is its heuristic, has none here: only the
  // GPU names that configuration (the registry's vendor(), an empty configuration).
  virtual std::optional<std::string> rule(const Problem& p, int sm_count) const = 0;
  // Other configurations worth timing on first use beside the rule (what the rule chooses among).
  virtual std::vector<std::string> rule_candidates(const Problem& p, int sm_count) const { return {}; }

  // --- Building. What the JIT compiles for `config` on p (none for a family it does not compile); Error where it
  // does not parse.
  virtual std::vector<Instantiation> instantiations(const Problem& p, std::string_view config) const { return {}; }
  // Throws Unsupported where the family does not take p or the configuration is infeasible for it, Error where it
  // does not parse or build. An empty configuration is the vendor's own heuristic choice (the vendor family alone).
  virtual std::unique_ptr<Kernel> build(const Problem& p, std::string_view config, const Resources& r) const = 0;
  // Each configuration built, the feasible ones' instantiations compiled all at once on every core first; one that
  // does not build carries its reason.
  virtual std::vector<Built> build_all(const Problem& p, const std::vector<std::string>& configs,
                                       const Resources& r) const;

  // --- Tuning. Why the tuner does not take the family to p (nothing: it takes it, and a problem it cannot run fails
  // as a case).
  virtual std::optional<std::string> declines(const Problem& p) const { return std::nullopt; }
  // The search space for p and its warm start: `start` where given, else the family's rule. Throws Unsupported where
  // nothing in the family runs p.
  virtual Tunable tunable(const Problem& p, const Resources& r, const std::optional<std::string>& start) const = 0;

  // --- The harness's arms. Their names (a pattern such as "sm90:<config>" where a family takes one), and the arm
  // named `name`, or null where the name is not one of this family's.
  virtual std::vector<std::string> arm_names() const = 0;
  virtual std::unique_ptr<Arm> make_arm(const std::string& name) const = 0;
  // The canonical configuration one of the family's arms recorded in a receipt (its `config` object, Arm::config()),
  // or nothing where the record names none (a family whose rule the floor does not weigh need not read it). Throws
  // Error where the configuration it names does not parse.
  virtual std::optional<std::string> recorded_config(const nlohmann::json&) const { return std::nullopt; }
};

// The family's canonical form of the text at `key` of an arm's recorded `config` object, or nothing where the object
// has no text there: what each family's recorded_config() reads.
std::optional<std::string> recorded_text(const nlohmann::json& arm_config, const char* key, const Family& family);

}  // namespace tilewise::families
