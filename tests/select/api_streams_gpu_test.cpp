// One Context on two streams at once: each stream runs its own plan of a signature (the choice made once for both),
// with its own cuBLASLt workspace and stream-K scratch, so launches interleaved on both streams give each its right
// answer; the plans of several problems on one stream share its stream-K scratch and load their kernel once; a
// stream's first call may come inside a global-mode graph capture; and every family refuses a null or misaligned
// operand before launching, leaving the context working.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "expect_error.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/heuristic.hpp"
#include "gpu.hpp"
#include "families/sm90/gemm.hpp"
#include "jit/kernel.hpp"
#include "receipt/derive.hpp"
#include "select/api.hpp"
#include "select/context_state.hpp"
#include "select/database_file.hpp"

namespace tilewise {
namespace {

namespace fs = std::filesystem;

struct StreamsTest : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("tw_streams_" + std::to_string(::getpid()));
  void SetUp() override {
    TW_REQUIRE_GPU();
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // A context whose only database runs `family` `config` for p.
  ContextOptions running(const Problem& p, const std::string& family, const std::string& config) {
    select::Database db;
    select::add(db, running_identity(), p, family, config, 1.0);
    const std::string path = (dir / fmt::format("{}-{}.json", p.name, family)).string();
    select::write_database(db, path);
    ContextOptions o;
    o.database = path;
    o.shipped_database = false;
    o.use_machine_database = false;
    o.tune = TuneMode::off;
    return o;
  }

  static void expect_correct(const device::Reference& ref, const void* c, const Problem& p, cudaStream_t s,
                             const std::string& what) {
    const device::OutputError e = ref.compare(c, s);
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)))
        << what << ": " << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
  }
};

// Configurations whose launches keep state between them: sm90 with stream-K (its partials and flags) and cuBLASLt
// with a split-K reduction (its workspace).
struct Stateful {
  Problem p;
  std::string family, config;
};

std::vector<Stateful> stateful_configurations() {
  std::vector<Stateful> out;
  const Problem sk = make_problem("streamk", 1024, 1024, 8192, DType::bf16, Layout::TN);
  for (const sm90::Config& c : sm90::feasible_set(sk))
    if (c.split > 1) {
      out.push_back({sk, "sm90", sm90::to_string(c)});
      break;
    }
  const Problem deep = make_problem("deep", 256, 256, 16384, DType::bf16, Layout::TN);
  const cublaslt::Context lt;
  for (const cublaslt::Candidate& c : cublaslt::Matmul(lt, deep).heuristic(32))
    if (c.workspace_bytes > 0) {
      out.push_back({deep, "cublaslt", cublaslt::to_string(c.config)});
      break;
    }
  return out;
}

TEST_F(StreamsTest, TwoStreamsRunOneContextAtOnce) {
  const std::vector<Stateful> cases = stateful_configurations();
  ASSERT_EQ(cases.size(), 2u) << "no stream-K sm90 configuration or no cuBLASLt candidate with a workspace";
  for (const Stateful& k : cases) {
    SCOPED_TRACE(k.family + " " + k.config);
    Context ctx(running(k.p, k.family, k.config));
    device::Stream s1, s2;
    device::Operands ops(k.p, 2, 2 * device::Reference::bytes(k.p));
    ops.fill(11, s1.get());
    const device::Reference r0(k.p, ops.set(0), s1.get()), r1(k.p, ops.set(1), s1.get());
    ops.poison_outputs(s1.get());
    s1.sync();
    Plan& first = ctx.plan(k.p, s1.get());
    Plan& second = ctx.plan(k.p, s2.get());
    EXPECT_NE(&first, &second);                  // each stream its own plan ...
    EXPECT_EQ(first.choice(), second.choice());  // ... of the one choice
    EXPECT_EQ(first.choice().config, k.config);
    // Interleaved without a synchronization between them: each kernel of one stream overlaps the other's.
    for (int i = 0; i < 64; ++i) {
      gemm(ctx, k.p, ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get(), s1.get());
      gemm(ctx, k.p, ops.set(1).a.get(), ops.set(1).b.get(), ops.set(1).c.get(), s2.get());
    }
    s2.sync();
    expect_correct(r0, ops.set(0).c.get(), k.p, s1.get(), "the first stream's output");
    expect_correct(r1, ops.set(1).c.get(), k.p, s1.get(), "the second stream's output");
  }
}

// Token counts of one weight shape, each its own plan: one after another on one stream they share the stream-K
// partials and flags (each stream-K kernel leaves its flags at zero for the next) and the loaded kernel, and every
// output is right however the plans alternate.
TEST_F(StreamsTest, PlansOfSeveralProblemsShareTheirStreamsScratch) {
  const Problem widest = make_problem("tokens768", 1024, 768, 8192, DType::bf16, Layout::TN);
  std::optional<sm90::Config> stream_k;
  for (const sm90::Config& c : sm90::feasible_set(widest))
    if (c.split > 1 && !c.swap) {
      stream_k = c;
      break;
    }
  ASSERT_TRUE(stream_k) << "no stream-K sm90 configuration";
  select::Database db;
  std::vector<Problem> problems;
  for (int64_t tokens : {768, 256, 512}) {
    Problem p = make_problem(fmt::format("tokens{}", tokens), 1024, tokens, 8192, DType::bf16, Layout::TN);
    ASSERT_FALSE(sm90::infeasible(*stream_k, p)) << describe(p);
    select::add(db, running_identity(), p, "sm90", sm90::to_string(*stream_k), 1.0);
    problems.push_back(p);
  }
  const std::string path = (dir / "tokens.json").string();
  select::write_database(db, path);
  ContextOptions o;
  o.database = path, o.shipped_database = false, o.use_machine_database = false, o.tune = TuneMode::off;
  Context ctx(o);
  device::Stream s;
  device::Operands ops(widest, 3, 3 * device::Reference::bytes(widest));
  ops.fill(14, s.get());
  std::vector<std::unique_ptr<device::Reference>> refs;
  for (size_t i = 0; i < problems.size(); ++i)
    refs.push_back(std::make_unique<device::Reference>(problems[i], ops.set(int(i)), s.get()));
  ops.poison_outputs(s.get());
  // What each plan alone reserves: its own scratch, as a Gemm without the stream's holds.
  size_t largest = 0, together = 0;
  for (const Problem& p : problems) {
    device::StreamScratch own;
    const sm90::Gemm alone(p, *stream_k, device::sm_count(), &own);
    largest = std::max(largest, own.bytes_held()), together += own.bytes_held();
  }
  const int loaded_before = jit::loaded_count();
  for (int round = 0; round < 16; ++round)
    for (size_t i = 0; i < problems.size(); ++i) {
      const size_t k = (i + size_t(round)) % problems.size();  // every order of neighbours, larger before smaller too
      const Choice& ran = gemm(ctx, problems[k], ops.set(int(k)).a.get(), ops.set(int(k)).b.get(),
                               ops.set(int(k)).c.get(), s.get());
      ASSERT_EQ(ran.config, sm90::to_string(*stream_k));
    }
  // The Gemms above are gone, so the plans loaded the kernel afresh: once for the three of them.
  EXPECT_EQ(jit::loaded_count() - loaded_before, 1) << "three plans of one configuration, loaded other than once";
  const size_t held = ContextAccess::state(ctx).scratch_of(s.get()).bytes_held();
  EXPECT_GE(held, largest);
  EXPECT_LT(held, together) << "each plan holds scratch of its own";
  for (size_t i = 0; i < problems.size(); ++i)
    expect_correct(*refs[i], ops.set(int(i)).c.get(), problems[i], s.get(), problems[i].name);
}

// torch captures on a stream of its own after warming up on another: that stream's first plan (a new stream-K
// scratch) is built inside a global-mode capture, which forbids allocation unless relaxed for it.
TEST_F(StreamsTest, AStreamsFirstCallMayComeInsideAGlobalModeCapture) {
  const std::vector<Stateful> cases = stateful_configurations();
  ASSERT_FALSE(cases.empty());
  const Stateful& k = cases.front();
  Context ctx(running(k.p, k.family, k.config));
  device::Stream warm, capture;
  device::Operands ops(k.p, 1, device::Reference::bytes(k.p));
  ops.fill(12, warm.get());
  const device::Reference ref(k.p, ops.set(0), warm.get());
  gemm(ctx, k.p, ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get(), warm.get());
  ops.poison_output(0, warm.get());
  warm.sync();
  cudaGraph_t graph = nullptr;
  TW_CUDA(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeGlobal));
  const Choice& c = gemm(ctx, k.p, ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get(), capture.get());
  TW_CUDA(cudaStreamEndCapture(capture.get(), &graph));
  EXPECT_EQ(c.config, k.config);
  cudaGraphExec_t exec = nullptr;
  TW_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  TW_CUDA(cudaGraphLaunch(exec, capture.get()));
  expect_correct(ref, ops.set(0).c.get(), k.p, capture.get(), "the captured graph's output");
  TW_CUDA(cudaGraphExecDestroy(exec));
  TW_CUDA(cudaGraphDestroy(graph));
}

// Every family checks its operands before it launches: a null pointer or one its loads or stores cannot take is an
// Error naming the operand, and the context (and the GPU context under it) still computes correctly afterwards.
TEST_F(StreamsTest, EveryFamilyRefusesABadPointerBeforeLaunching) {
  const Problem big = make_problem("big", 1024, 1024, 1024, DType::bf16, Layout::TN);
  const Problem dec = make_problem("dec", 1, 4096, 4096, DType::bf16, Layout::TN);
  const gemv::Config g = gemv::default_config(gemv::view_of(dec)->problem, gemv::Format::bf16);
  const cublaslt::Context lt;
  struct Case {
    Problem p;
    std::string family, config;
    bool null_only;  // cuBLASLt's algorithms may take any element-aligned pointer: only null is surely refused
  };
  const Case cases[] = {{big, "sm90", sm90::to_string(sm90::first_rule(big)), false},
                        {dec, "gemv", gemv::to_string(g), false},
                        {big, "cublaslt", cublaslt::to_string(cublaslt::Matmul(lt, big).heuristic(1).front().config),
                         true}};
  for (const Case& k : cases) {
    SCOPED_TRACE(k.family);
    Context ctx(running(k.p, k.family, k.config));
    device::Stream s;
    device::Operands ops(k.p, 1, device::Reference::bytes(k.p));
    ops.fill(13, s.get());
    const device::Reference ref(k.p, ops.set(0), s.get());
    const auto* a = static_cast<const char*>(ops.set(0).a.get());
    const auto* b = static_cast<const char*>(ops.set(0).b.get());
    auto* c = static_cast<char*>(ops.set(0).c.get());
    // A null pointer is named by its value in every family's message.
    EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemm(ctx, k.p, nullptr, b, c, s.get()); }), "0x0"));
    EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemm(ctx, k.p, a, nullptr, c, s.get()); }), "0x0"));
    EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemm(ctx, k.p, a, b, nullptr, s.get()); }), "0x0"));
    if (!k.null_only) {
      EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemm(ctx, k.p, a + 2, b, c, s.get()); }), "aligned"));
      EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { gemm(ctx, k.p, a, b, c + 1, s.get()); }), "aligned"));
    }
    ops.poison_output(0, s.get());
    const Choice& ran = gemm(ctx, k.p, a, b, c, s.get());
    EXPECT_EQ(ran.family, k.family);
    expect_correct(ref, c, k.p, s.get(), "a good call after the refused ones");
  }
}

}  // namespace
}  // namespace tilewise
