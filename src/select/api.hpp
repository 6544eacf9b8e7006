#pragma once
// The library API of docs/design.md: tilewise::gemm(ctx, problem, A, B, C, stream) computes C = op(A) op(B) with the
// kernel selection picks (select/choice.hpp: the tuned database's entry, else a family the floor measured faster than
// cuBLASLt's default, else cuBLASLt's default), built on first use and kept.
// The CLI, the harness (the arm `selected`) and the tuner are clients of it.
#include <cuda_runtime.h>

#include <map>
#include <optional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/problem.hpp"
#include "select/choice.hpp"
#include "select/identity.hpp"

namespace tilewise {

namespace cublaslt {
class Context;
}

struct ContextOptions {
  std::string database;        // a tuned database file; empty: the floor and cuBLASLt alone
  bool allow_foreign = false;  // use a database measured under another identity (the reasons: Context::overridden)
  std::string floor;           // a floor file (tilewise floor fit) in place of the one shipped for the H200
};

// One problem's selected kernel, built and ready to launch on any operands of that problem.
class Plan {
 public:
  virtual ~Plan() = default;
  virtual void run(const void* A, const void* B, void* C, cudaStream_t stream) = 0;
  const select::Choice& choice() const { return choice_; }

 protected:
  explicit Plan(select::Choice c) : choice_(std::move(c)) {}
  select::Choice choice_;  // for cuBLASLt from the heuristic, the configuration its heuristic named
};

// What gemm needs across calls: the database loaded for this machine, the plans built so far (one per problem
// signature), one cuBLASLt handle and workspace. Not thread-safe: one per thread, or guarded by the caller.
class Context {
 public:
  // Needs a GPU (device 0). Throws Error when the database cannot be read or was measured under another identity
  // (unless options.allow_foreign).
  explicit Context(ContextOptions options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  select::Choice choose(const Problem& p) const;  // what plan(p) builds, without building it
  // The plan for p, built on first use. Throws Unsupported when no family runs p, Error when a database entry does
  // not build or run here.
  Plan& plan(const Problem& p);
  // A plan for p running `c` (a family's rule, a configuration to compare), built each call and not kept.
  std::unique_ptr<Plan> plan_for(const Problem& p, const select::Choice& c);

  const select::Identity& identity() const { return identity_; }
  const std::vector<std::string>& overridden() const { return overridden_; }  // identity mismatches let through
  bool has_database() const { return db_ != nullptr; }

 private:
  using Key = std::tuple<int64_t, int64_t, int64_t, DType, Layout, int64_t, int64_t, int64_t>;
  std::unique_ptr<Plan> build(const Problem& p, select::Choice c);
  const cublaslt::Context& vendor();

  select::Identity identity_;
  int sm_count_ = 0;
  std::optional<select::FloorRule> floor_;  // empty: the shipped one
  std::unique_ptr<select::Database> db_;
  std::vector<std::string> overridden_;
  std::unique_ptr<cublaslt::Context> vendor_;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

// C = op(A) op(B) for p on `stream`; returns what ran (family, configuration, database or heuristic).
const select::Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream);

// The identity of this machine and build, as the tuner records it and the database is checked against.
select::Identity running_identity();

}  // namespace tilewise
