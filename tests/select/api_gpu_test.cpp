// tilewise::gemm: a database entry is what runs when the database has the signature (sm90, gemv or cuBLASLt
// configurations, read back from their canonical strings), its token bucket's checked entry, the floor's pick or
// cuBLASLt otherwise; first-use tuning persists and reloads and never runs inside graph capture; every result is
// correct in both orientations, and a database from another GPU is refused unless overridden.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include <unistd.h>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "expect_error.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/registry.hpp"
#include "families/gemv/view.hpp"
#include "families/sm90/heuristic.hpp"
#include "families/sm90/feasibility.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"
#include "select/api.hpp"
#include "select/choice.hpp"
#include "select/database_file.hpp"
#include "select/json_file.hpp"

namespace tilewise {
namespace {

namespace fs = std::filesystem;

struct ApiTest : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("tw_api_" + std::to_string(::getpid()));
  void SetUp() override {
    TW_REQUIRE_GPU();
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const select::Database& db, const std::string& name) {
    const std::string path = (dir / name).string();
    select::write_database(db, path);
    return path;
  }

  // A context that reads nothing from the environment, the cache folder or the shipped database: what each test says.
  static ContextOptions isolated(std::string database = "", bool allow_foreign = false) {
    ContextOptions o;
    o.database = std::move(database);
    o.allow_foreign = allow_foreign;
    o.shipped_database = false;
    o.use_machine_database = false;
    o.tune = TuneMode::off;
    return o;
  }
  ContextOptions tuning(const std::string& machine_database) const {
    ContextOptions o = isolated();
    o.tune = TuneMode::on;
    o.use_machine_database = true;
    o.machine_database = machine_database;
    return o;
  }

  // Runs gemm on fresh operands and judges C against the reference; returns what ran.
  select::Choice run_checked(Context& ctx, const Problem& p) {
    device::Stream s;
    device::Operands ops(p, 1, device::Reference::bytes(p));
    ops.fill(3, s.get());
    const device::Reference ref(p, ops.set(0), s.get());
    ops.poison_output(0, s.get());
    const select::Choice c = gemm(ctx, p, ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get(), s.get());
    const device::OutputError e = ref.compare(ops.set(0).c.get(), s.get());
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype))) << describe(p) << " " << c.config;
    return c;
  }
};

const Problem kP = make_problem("p", 1024, 2048, 512, DType::bf16, Layout::TN);

// choose() refuses what gemm refuses, naming it, rather than choosing for it.
TEST_F(ApiTest, ChooseRefusesAProblemGemmRefuses) {
  Problem p = kP;
  p.lda = 100;  // short of K = 512 for TN's A
  const Context ctx(isolated());
  EXPECT_NE(testkit::error_of([&] { ctx.choose(p); }), "");
}

TEST_F(ApiTest, TheDatabasesFastestEntryRuns) {
  const cublaslt::Context lt;
  const cublaslt::Matmul m(lt, kP);
  const std::string lt_config = cublaslt::to_string(m.heuristic(32).back().config);  // not the default one
  const std::vector<sm90::Config> feasible = sm90::feasible_set(kP);
  const std::string sm90_config = sm90::to_string(feasible[feasible.size() / 2]);
  const select::Identity here = running_identity();

  select::Database vendor_wins;
  select::add(vendor_wins, here, kP, "cublaslt", lt_config, 1.0);
  select::add(vendor_wins, here, kP, "sm90", sm90_config, 2.0);
  Context a(isolated(write(vendor_wins, "a.json")));
  const select::Choice ca = run_checked(a, kP);
  EXPECT_EQ(ca.source, "database");
  EXPECT_EQ(ca.family, "cublaslt");
  EXPECT_EQ(ca.config, lt_config);

  select::Database ours_wins;
  select::add(ours_wins, here, kP, "sm90", sm90_config, 1.0);
  Context b(isolated(write(ours_wins, "b.json")));
  const select::Choice cb = run_checked(b, kP);
  EXPECT_EQ(cb.family, "sm90");
  EXPECT_EQ(cb.config, sm90_config);
  // Another problem is not in the database: the floor's pick or cuBLASLt's heuristic.
  EXPECT_NE(run_checked(b, make_problem("q", 512, 512, 512, DType::fp16, Layout::NN)).source, "database");
}

TEST_F(ApiTest, WithoutADatabaseTheFloorDecidesAndEveryFamilyRuns) {
  const Problem dec = make_problem("dec", 1, 4096, 4096, DType::bf16, Layout::TN);
  const Problem odd = make_problem("odd", 100, 200, 300, DType::bf16, Layout::TN);
  select::FloorRule floor;
  const select::Identity here = running_identity();
  floor.gpu = here.gpu, floor.sm_count = here.sm_count, floor.cc = here.cc, floor.neighbours = 1, floor.radius = 0.5;
  // Each outcome names the configuration its family's rule chooses there, or it would not be current.
  const auto chosen = [&](const std::string& family, const Problem& p) {
    return *families::family(family).rule(p, here.sm_count);
  };
  floor.points = {{dec, {{"gemv", {1.2, "faster", chosen("gemv", dec)}}}},
                  {kP, {{"sm90", {1.1, "faster", chosen("sm90", kP)}}}}};
  const std::string path = (dir / "floor.json").string();
  select::write_json_file_atomically(select::to_json(floor), path);
  ContextOptions o = isolated();
  o.floor = path;
  Context ctx(o);
  EXPECT_FALSE(ctx.has_database());
  const select::Choice g = run_checked(ctx, dec);
  EXPECT_EQ(g.family, "gemv");
  EXPECT_EQ(g.source, "floor");
  EXPECT_EQ(run_checked(ctx, kP).family, "sm90");
  const select::Choice lt = run_checked(ctx, odd);
  EXPECT_EQ(lt.family, "cublaslt");
  EXPECT_EQ(lt.source, "heuristic");
  EXPECT_FALSE(lt.config.empty());  // the configuration cuBLASLt's heuristic named is recorded
  // The plan is kept: the same problem again is the same choice without building anything.
  EXPECT_EQ(&ctx.plan(kP), &ctx.plan(kP));
  // The same floor measured on another GPU takes nothing here, and the context says so.
  floor.gpu += " (another board)";
  o.floor = (dir / "foreign-floor.json").string();
  select::write_json_file_atomically(select::to_json(floor), o.floor);
  Context elsewhere(o);
  ASSERT_EQ(elsewhere.warnings().size(), 1u);
  EXPECT_TRUE(testkit::Contains(elsewhere.warnings()[0], "it takes no family here")) << elsewhere.warnings()[0];
  EXPECT_EQ(run_checked(elsewhere, dec).source, "heuristic");
}

// nn.Linear's orientation (TN, M = features, N = tokens, C column-major [F x T] = y row-major): every family's rule
// runs it correctly at the token counts the GEMV serves, with a padded ldc too.
TEST_F(ApiTest, EveryFamilysRuleRunsNnLinearsOrientation) {
  Context ctx(isolated());
  int gemv_runs = 0;
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (int64_t t : {1, 3, 8, 16})
      for (int64_t pad : {0, 24}) {
        const Problem p = make_problem("lin", 4096, t, 2048, d, Layout::TN, pad);
        for (const select::Choice& c : select::rule_choices(p, 132)) {
          SCOPED_TRACE(describe(p) + " " + c.family + " " + c.config);
          std::unique_ptr<Plan> plan = ctx.plan_for(p, c);
          EXPECT_EQ(plan->choice().family, c.family);
          device::Stream s;
          device::Operands ops(p, 1, device::Reference::bytes(p));
          ops.fill(5, s.get());
          const device::Reference ref(p, ops.set(0), s.get());
          ops.poison_output(0, s.get());
          plan->run(ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get(), s.get());
          const device::OutputError e = ref.compare(ops.set(0).c.get(), s.get());
          EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)))
              << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
          gemv_runs += c.family == "gemv";
        }
      }
  EXPECT_EQ(gemv_runs, 3 * 4 * 2);
}

// The decode GEMV from a database on what only a database gives it: x M-major (NN) and an fp8 problem's own B (no
// channel scale). Each runs the entry and is correct.
TEST_F(ApiTest, TheGemvRunsNnAndFp8ProblemsFromADatabase) {
  const select::Identity here = running_identity();
  Problem nn = make_problem("nn", 16, 4096, 4096, DType::bf16, Layout::NN);
  nn.lda += 8;  // a padded column of tokens
  const Problem fp8 = make_problem("fp8", 16, 4096, 4096, DType::fp8_e4m3, Layout::TN);
  for (const Problem& p : {nn, fp8})
    for (gemv::Engine e : {gemv::Engine::mma, gemv::Engine::fma}) {  // the default's engine and the fma engine
      const gemv::Config c = gemv::default_config(p, gemv::native_format(p.dtype), 132, e);
      select::Database db;
      select::add(db, here, p, "gemv", gemv::to_string(c), 1.0);
      Context ctx(isolated(write(db, fmt::format("{}-{}.json", p.name, gemv::to_string(e)))));
      const select::Choice ran = run_checked(ctx, p);
      EXPECT_EQ(ran.family, "gemv");
      EXPECT_EQ(ran.config, gemv::to_string(c));
    }
}

TEST_F(ApiTest, ADatabaseFromAnotherGpuIsRefusedUnlessOverriddenAndADriverDifferenceWarns) {
  select::Identity elsewhere = running_identity();
  elsewhere.gpu += " (another board)";  // never the running GPU's name, whichever GPU runs the test
  select::Database db;
  select::add(db, elsewhere, kP, "sm90", sm90::to_string(sm90::feasible_set(kP).front()), 1.0);
  const std::string path = write(db, "foreign.json");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { Context c(isolated(path)); }), "gpu"));
  Context c(isolated(path, true));
  EXPECT_FALSE(c.overridden().empty());
  EXPECT_EQ(run_checked(c, kP).source, "database");

  select::Identity updated = running_identity();
  updated.driver = "1.0 (another driver)";
  select::Database newer;
  select::add(newer, updated, kP, "sm90", sm90::to_string(sm90::feasible_set(kP).front()), 1.0);
  Context warned(isolated(write(newer, "driver.json")));
  EXPECT_TRUE(warned.overridden().empty());
  ASSERT_EQ(warned.warnings().size(), 1u);
  EXPECT_TRUE(testkit::Contains(warned.warnings()[0], "driver"));
  EXPECT_EQ(run_checked(warned, kP).source, "database");
}

// First-use tuning: the first call of a new signature times the short list and keeps a correct winner, no slower
// than cuBLASLt's default by its own measurement; the machine database has it, and a new context (a later process)
// runs it from there without tuning again.
TEST_F(ApiTest, FirstUseTuningPersistsAndALaterContextReloadsIt) {
  const std::string machine = (dir / "machine" / "database.json").string();
  const Problem shapes[] = {make_problem("lin8", 4096, 8, 4096, DType::bf16, Layout::TN),
                            make_problem("odd", 999, 1001, 1003, DType::fp16, Layout::NN),
                            make_problem("fp8", 2048, 256, 4096, DType::fp8_e4m3, Layout::TN)};
  std::vector<select::Choice> won;
  {
    Context ctx(tuning(machine));
    for (const Problem& p : shapes) {
      const select::Choice c = run_checked(ctx, p);
      EXPECT_EQ(c.source, "first use") << p.name;
      const select::FirstUse* t = ctx.tuned(p);
      ASSERT_NE(t, nullptr);
      ASSERT_GE(t->timed.size(), 2u);
      ASSERT_TRUE(t->timed[0].us) << t->summary();  // cuBLASLt's default, the incumbent
      EXPECT_LE(c.us, *t->timed[0].us) << t->summary();
      EXPECT_LT(t->seconds, 30.0) << t->summary();
      EXPECT_EQ(run_checked(ctx, p), c);  // the plan is kept: no second tuning
      won.push_back(c);
    }
  }
  const select::Database db = select::read_database(machine);
  EXPECT_EQ(db.records.size(), std::size(shapes));
  Context later(tuning(machine));
  for (size_t i = 0; i < std::size(shapes); ++i) {
    const select::Choice c = run_checked(later, shapes[i]);
    EXPECT_EQ(c.source, "database");
    EXPECT_EQ(c.family, won[i].family);
    EXPECT_EQ(c.config, won[i].config);
    EXPECT_EQ(later.tuned(shapes[i]), nullptr);
    const select::Entry* e = select::lookup(db, shapes[i], c.family);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(testkit::Contains(e->source, "first use")) << e->source;
  }
}

// Inside CUDA-graph capture a new signature is never tuned (nothing is launched into the graph but the GEMM), and
// what was captured replays correctly.
TEST_F(ApiTest, ACallInsideGraphCaptureNeverTunes) {
  const std::string machine = (dir / "capture.json").string();
  Context ctx(tuning(machine));
  device::Stream s;
  const Problem q = make_problem("cap2", 3072, 12, 4096, DType::bf16, Layout::TN);
  device::Operands qops(q, 1, device::Reference::bytes(q));
  qops.fill(6, s.get());
  const device::Reference qref(q, qops.set(0), s.get());
  qops.poison_output(0, s.get());
  TW_CUDA(cudaStreamSynchronize(s.get()));
  cudaGraph_t graph = nullptr;
  // Relaxed: a first call builds its plan (module loads, a workspace) inside the capture; an application that
  // captures in global mode calls once before capturing (docs/design.md).
  TW_CUDA(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeRelaxed));
  const select::Choice c = gemm(ctx, q, qops.set(0).a.get(), qops.set(0).b.get(), qops.set(0).c.get(), s.get());
  TW_CUDA(cudaStreamEndCapture(s.get(), &graph));
  EXPECT_NE(c.source, "first use");
  EXPECT_EQ(ctx.tuned(q), nullptr);
  cudaGraphExec_t exec = nullptr;
  TW_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  TW_CUDA(cudaGraphLaunch(exec, s.get()));
  const device::OutputError e = qref.compare(qops.set(0).c.get(), s.get());
  EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(q.dtype))) << c.config;
  TW_CUDA(cudaGraphExecDestroy(exec));
  TW_CUDA(cudaGraphDestroy(graph));
  EXPECT_FALSE(fs::exists(machine) && select::lookup(select::read_database(machine), q, c.family));
}

// Asked to (untimed bucket service is off by default), a bucket's entry serves another token count of its bucket
// only once checked correct there, and the result is correct at every token count of the bucket, edge counts included.
TEST_F(ApiTest, ABucketsEntryServesEveryTokenCountOfItsBucketCorrectly) {
  const select::Identity here = running_identity();
  const Problem tuned = make_problem("t12", 4096, 12, 4096, DType::bf16, Layout::TN);
  select::Database db;
  const gemv::Config g = gemv::default_config(gemv::view_of(tuned)->problem, gemv::Format::bf16);
  select::add(db, here, tuned, "gemv", gemv::to_string(g), 1.0);
  const Problem wide = make_problem("t24", 4096, 24, 4096, DType::bf16, Layout::TN);
  select::add(db, here, wide, "sm90", sm90::to_string(sm90::first_rule(wide)), 1.0);
  ContextOptions o = isolated(write(db, "buckets.json"));
  EXPECT_NE(Context(o).choose(make_problem("t9", 4096, 9, 4096, DType::bf16, Layout::TN)).source, "bucket");
  o.serve_buckets = true;
  Context ctx(o);
  for (int64_t t : {9, 11, 13, 16, 17, 23, 25, 32}) {
    Problem p = make_problem(fmt::format("t{}", t), 4096, t, 4096, DType::bf16, Layout::TN, t == 16 ? 8 : 0);
    const select::Choice c = run_checked(ctx, p);
    EXPECT_EQ(c.source, "bucket") << t;
    EXPECT_EQ(c.family, t <= 16 ? "gemv" : "sm90") << t;
  }
  EXPECT_NE(run_checked(ctx, make_problem("t33", 4096, 33, 4096, DType::bf16, Layout::TN)).source, "bucket");
}

}  // namespace
}  // namespace tilewise
