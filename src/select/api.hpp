#pragma once
// The library API of docs/design.md: tilewise::gemm(ctx, problem, A, B, C, stream) computes C = op(A) op(B) with the
// kernel selection picks (select/choice.hpp: a tuned database's entry, else its token bucket's, else a family the
// floor measured faster than cuBLASLt's default, else cuBLASLt's default), built on first use and kept. With tuning
// on (TILEWISE_TUNE=1), a signature no database holds is tuned on its first call (select/first_use.hpp) and kept in
// the per-machine database (select/machine_database.hpp) for later processes.
// The CLI, the harness (the arm `selected`) and the tuner are clients of it.
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/problem.hpp"
#include "select/choice.hpp"
#include "select/first_use.hpp"
#include "select/identity.hpp"
#include "select/plan.hpp"

namespace tilewise {

namespace cublaslt {
class Context;
}

// off: select only. on: tune a signature no database holds on its first call outside CUDA-graph capture, and keep it.
// record: select only, and write each new signature to a suite (select::recorded_suite_path) for `tilewise tune`.
enum class TuneMode { off, on, record };
// TILEWISE_TUNE: unset, "0" or "off" is off; "1" or "on" is on; "record" is record; anything else throws Error.
TuneMode tune_mode_from_environment();

struct ContextOptions {
  std::string database;        // a tuned database file, searched before the shipped one; empty: none
  bool allow_foreign = false;  // use `database` although measured on another GPU (the reasons: Context::overridden)
  bool shipped_database = true;  // data/database-h200.json, where the identity policy lets this machine use it
  std::string floor;           // a floor file (tilewise floor fit) in place of the one shipped for the H200
  std::optional<TuneMode> tune;  // empty: TILEWISE_TUNE
  // The per-machine database first-use tuning reads and adds to; empty: select::machine_database_path(). Read
  // whenever it exists and `use_machine_database`, searched first.
  std::string machine_database;
  bool use_machine_database = true;
  select::FirstUseOptions first_use;  // its budget per new signature
  bool serve_buckets = false;  // select::Rules::serve_buckets: a bucket's entry serves untimed (checked correct)
};

// What gemm needs across calls: the databases loaded for this machine, the plans built so far (one per problem
// signature, never replaced once built, so a captured graph's kernels stay valid), one cuBLASLt handle and
// workspace. Not thread-safe: one per thread, or guarded by the caller; several contexts and processes may tune into
// one machine database at once.
class Context {
 public:
  // Needs a GPU (device 0). Throws Error when `options.database` cannot be read or was measured on another GPU
  // (unless options.allow_foreign), or when the machine database is corrupt.
  explicit Context(ContextOptions options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // What plan(p) builds when it neither tunes nor finds a bucket entry incorrect.
  select::Choice choose(const Problem& p) const;
  // The plan for p, built on first use. Inside CUDA-graph capture on `stream` it never tunes or checks a bucket's
  // entry (that would launch work into the graph): an exact database entry or the floor then serves, and the
  // plan stays for the process. Throws Unsupported when no family runs p, Error when a database entry does not build
  // or run here.
  Plan& plan(const Problem& p, cudaStream_t stream = nullptr);
  // A plan for p running `c` (a family's rule, a configuration to compare), built each call and not kept.
  std::unique_ptr<Plan> plan_for(const Problem& p, const select::Choice& c);

  const select::Identity& identity() const { return identity_; }
  const std::vector<std::string>& overridden() const { return overridden_; }  // identity refusals let through
  const std::vector<std::string>& warnings() const { return warnings_; }      // lesser differences, and skipped data
  bool has_database() const;
  TuneMode tune_mode() const { return tune_; }
  // First-use tuning's record of p, when this context tuned it.
  const select::FirstUse* tuned(const Problem& p) const;

 private:
  using Key = std::tuple<int64_t, int64_t, int64_t, DType, Layout, int64_t, int64_t, int64_t>;
  static Key key_of(const Problem& p) { return {p.M, p.N, p.K, p.dtype, p.layout, p.lda, p.ldb, p.ldc}; }
  select::Rules rules() const;
  std::vector<const select::Database*> databases() const;
  std::unique_ptr<Plan> make(const Problem& p, const select::Choice& c);  // select::make_plan with this context's
  std::unique_ptr<Plan> build(const Problem& p, select::Choice c);        // make, with the floor's fall back
  std::unique_ptr<Plan> select_plan(const Problem& p, bool capturing);
  std::unique_ptr<Plan> tune_plan(const Problem& p);
  const cublaslt::Context& vendor();

  select::Identity identity_;
  int sm_count_ = 0;
  std::optional<select::FloorRule> floor_;  // empty: the shipped one
  TuneMode tune_ = TuneMode::off;
  select::FirstUseOptions first_use_;
  bool serve_buckets_ = false;
  std::string machine_path_;
  // Searched in order: the machine database, the caller's, the shipped one.
  std::unique_ptr<select::Database> machine_, user_, shipped_;
  std::vector<std::string> overridden_, warnings_;
  std::unique_ptr<cublaslt::Context> vendor_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
  std::map<Key, select::FirstUse> tuned_;
};

// C = op(A) op(B) for p on `stream`; returns what ran (family, configuration, where the choice came from).
const select::Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream);

// The identity of this machine and build, as the tuner records it and the database is checked against.
select::Identity running_identity();

}  // namespace tilewise
