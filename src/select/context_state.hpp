#pragma once
// What a tilewise::Context holds (include/tilewise/context.hpp): the databases and floor selection reads, the choice
// made for each problem signature, and per stream the plans built from those choices with their own cuBLASLt
// workspace and stream-K scratch. Internal: the library's sources (api.cpp, quantized.cpp) reach it through
// ContextAccess.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/problem.hpp"
#include "device/scratch.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/gemv/gemv.hpp"
#include "families/sm90/gemm.hpp"
#include "select/choice.hpp"
#include "select/first_use.hpp"
#include "select/identity.hpp"
#include "select/plan.hpp"
#include "tilewise/context.hpp"
#include "tilewise/quantized.hpp"

namespace tilewise {

struct Context::State {
  using Key = ProblemIdentity;
  static Key key_of(const Problem& p) { return problem_identity(p); }

  select::Rules rules() const;
  std::vector<const select::Database*> databases() const;
  // select::make_plan with the cuBLASLt context of `stream` and `scratch` (the stream's for the plans it keeps;
  // null, the plan's own, for one that runs elsewhere).
  std::unique_ptr<Plan> make(const Problem& p, const select::Choice& c, cudaStream_t stream,
                             device::StreamScratch* scratch);
  // make, with the floor's fall back.
  std::unique_ptr<Plan> build(const Problem& p, select::Choice c, cudaStream_t stream, device::StreamScratch* scratch);
  std::unique_ptr<Plan> select_plan(const Problem& p, cudaStream_t stream, bool capturing);
  std::unique_ptr<Plan> tune_plan(const Problem& p, cudaStream_t stream);
  // The cuBLASLt handle and workspace of `stream`, made when a cuBLASLt plan is first built for it (64 MiB then).
  const cublaslt::Context& vendor(cudaStream_t stream);
  // The stream-K scratch that every plan of `stream` shares (device/scratch.hpp); allocates nothing until reserved.
  device::StreamScratch& scratch_of(cudaStream_t stream);

  select::Identity identity;
  int sm_count = 0;
  bool packed_crossover = false;  // the GPU linear's gemv/sm90 crossover was measured on (packed_crossover.hpp)
  std::optional<select::FloorRule> floor;  // empty: the shipped one
  TuneMode tune = TuneMode::off;
  FirstUseOptions first_use;
  bool serve_buckets = false;
  std::string machine_path;
  // Searched in order: the machine database, the caller's, the shipped one.
  std::unique_ptr<select::Database> machine, user, shipped;
  std::vector<std::string> overridden, warnings;
  std::map<Key, select::Choice> chosen;  // what each signature runs, made once (a built plan's own record)
  std::map<std::pair<Key, cudaStream_t>, std::unique_ptr<Plan>> plans;
  std::map<cudaStream_t, std::unique_ptr<cublaslt::Context>> vendors;
  std::map<cudaStream_t, std::unique_ptr<device::StreamScratch>> scratch;
  std::map<Key, select::FirstUse> tuned;
  // nn.Linear on packed weights (quantized.cpp): the gemv kernel of each format, token count, shape and activation
  // type, on rows of K (false) or the tensor-core copy (true). Its launches share no scratch, so one kernel serves
  // every stream.
  std::map<std::tuple<int, int64_t, int64_t, int64_t, DType, bool>, std::unique_ptr<gemv::Kernel>> packed;
  // Which kernel linear runs on the tensor-core copy alone, per format, token count, shape and activation type.
  std::map<std::tuple<int, int64_t, int64_t, int64_t, DType>, LinearKernel> copy_alone;
  // ptxas's register count of each gemv configuration the copy-alone choice weighs (by its text), read once from the
  // JIT cache; mutable because linear_kernel, a query on a const context, makes the same choice.
  mutable std::map<std::string, int> gemv_registers;
  // The sm90 kernel on the weights' tensor-core copy (where linear_kernel says), per format, token count, shape,
  // activation type and stream (its stream-K partials in the stream's scratch).
  std::map<std::tuple<int, int64_t, int64_t, int64_t, DType, cudaStream_t>, std::unique_ptr<sm90::Gemm>> packed_mma;
};

struct ContextAccess {
  static Context::State& state(Context& ctx) { return *ctx.s_; }
  static const Context::State& state(const Context& ctx) { return *ctx.s_; }
};

}  // namespace tilewise
