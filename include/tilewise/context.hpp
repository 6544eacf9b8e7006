#pragma once
// The library API of docs/design.md: tilewise::gemm(ctx, problem, A, B, C, stream) computes C = op(A) op(B) with the
// kernel selection picks (a tuned database's entry, else its token bucket's, else a family the floor measured faster
// than cuBLASLt's default, else cuBLASLt's default), built on first use and kept. With tuning on (TILEWISE_TUNE=1), a
// signature no database holds is tuned on its first call and kept in the per-machine database for later processes.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewise/export.hpp"
#include "tilewise/problem.hpp"

namespace tilewise {

class Plan;  // the tool's own: src/select/plan.hpp
namespace select {
struct Identity;  // src/select/identity.hpp
struct FirstUse;  // src/select/first_use.hpp
}  // namespace select

// The library's version ("0.1.0").
TILEWISE_API std::string_view version();

// off: select only. on: tune a signature no database holds on its first call outside CUDA-graph capture, and keep it.
// record: select only, and write each new signature to a suite for `tilewise tune`.
enum class TuneMode { off, on, record };
// TILEWISE_TUNE: unset, "0" or "off" is off; "1" or "on" is on; "record" is record; anything else throws Error.
TILEWISE_API TuneMode tune_mode_from_environment();

// First-use tuning's budget for one new signature.
struct FirstUseOptions {
  double budget_s = 1.0;  // about this long per new signature: candidates past it are not built
  int repeats = 5;        // interleaved samples per candidate
  // About how long one timed graph replay runs: replays of 0.2 ms ran at a boost clock a sustained load does not
  // keep, and an sm90 kernel that won by 15% there lost by 3% in `bench` (docs/notes/2026-12-02-first-use.md).
  double graph_ms = 1.0;
  // A candidate replaces cuBLASLt's default only this fraction or more faster by median, beside its range lying
  // wholly below: wins under 1% on kernels of a few microseconds did not reproduce in `bench`.
  double margin = 0.01;
};

struct ContextOptions {
  std::string database;        // a tuned database file, searched before the shipped one; empty: none
  bool allow_foreign = false;  // use `database` although measured on another GPU (the reasons: Context::overridden)
  bool shipped_database = true;  // data/database-h200.json, where the identity policy lets this machine use it
  std::string floor;           // a floor file (tilewise floor fit) in place of the one shipped for the H200
  std::optional<TuneMode> tune;  // empty: TILEWISE_TUNE
  // The per-machine database first-use tuning reads and adds to; empty: $TILEWISE_DB, else under ~/.cache/tilewise.
  // Read whenever it exists and `use_machine_database`, searched first.
  std::string machine_database;
  bool use_machine_database = true;
  FirstUseOptions first_use;   // its budget per new signature
  // Serve a token bucket's database entry untimed (checked correct on first use) where no exact entry is.
  bool serve_buckets = false;
};

// What selection picked for a problem.
struct Choice {
  std::string family;  // "sm90", "gemv" or "cublaslt"
  // The family's canonical configuration. Empty for cuBLASLt from its heuristic before it is built: its own
  // heuristic's first candidate, which only cuBLASLt on the GPU can name (a built plan records it).
  std::string config;
  // "database" (a tuned entry of the problem's signature), "bucket" (one tuned at another token count of its
  // bucket), "first use" (tuned on this call), "floor" (a family's rule, taken where the sweep measured it faster) or
  // "heuristic" (cuBLASLt's own heuristic).
  std::string source;
  double us = 0;  // the database's time; 0 otherwise
  bool operator==(const Choice&) const = default;
};

// What gemm needs across calls: the databases loaded for this machine, the choice made for each problem signature
// (made once, never replaced, so a captured graph's kernels stay valid) and, per stream, the plans built from those
// choices, which share that stream's cuBLASLt workspace and stream-K scratch. So several streams may run one context
// at once, but the work of one stream must run as that stream runs it, one kernel after another: CUDA graphs captured
// on one stream must be replayed one at a time, never two at once on different streams (two stream-K kernels on one
// scratch can give wrong results or hang). torch captures every graph on one stream unless given one: capture graphs
// that will replay concurrently on streams of their own. A stream's first call of a signature builds its plan (under
// CUDA-graph capture too: the allocation is then made in relaxed capture mode, as torch's allocator does). Calls from
// several threads at once must be serialized by the caller (the C ABI, tilewise.h, does).
class TILEWISE_API Context {
 public:
  // Needs a GPU (device 0). Throws Error when `options.database` cannot be read or was measured on another GPU
  // (unless options.allow_foreign), or when the machine database is corrupt.
  explicit Context(ContextOptions options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // What gemm builds for p when it neither tunes nor finds a bucket entry incorrect.
  Choice choose(const Problem& p) const;
  const std::vector<std::string>& overridden() const;  // identity refusals let through (allow_foreign)
  const std::vector<std::string>& warnings() const;    // lesser identity differences, and skipped data
  bool has_database() const;
  TuneMode tune_mode() const;

  // For the tool's own harness, tuner and tests (their types are internal):
  // The plan for p on `stream`, built on first use. Inside CUDA-graph capture on `stream` it never tunes or checks a
  // bucket's entry (that would launch work into the graph): an exact database entry or the floor then serves, and
  // the choice stays for the process. Throws Unsupported when no family runs p, Error when a database entry does not
  // build or run here.
  Plan& plan(const Problem& p, cudaStream_t stream = nullptr);
  // A plan for p running `c` (a family's rule, a configuration to compare), built each call and not kept.
  std::unique_ptr<Plan> plan_for(const Problem& p, const Choice& c);
  const select::Identity& identity() const;
  const select::FirstUse* tuned(const Problem& p) const;  // first-use tuning's record of p, when this context tuned it

 private:
  friend struct ContextAccess;  // the library's own code (src/select/context_state.hpp)
  struct State;
  std::unique_ptr<State> s_;
};

// C = op(A) op(B) for p on `stream`; returns what ran (family, configuration, where the choice came from). Throws
// Error, before any launch, for an invalid problem or an operand the chosen kernel cannot take (a null pointer, a
// misaligned one), Unsupported when no family runs p. Asynchronous; nothing is allocated or synchronized once the
// stream's plan for p exists.
TILEWISE_API const Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream);

}  // namespace tilewise
