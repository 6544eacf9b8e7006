// tilewise::gemm: a database entry is what runs when the database has the signature (sm90, gemv or cuBLASLt
// configurations, read back from their canonical strings), the floor's pick or cuBLASLt otherwise; every result is
// correct in both orientations, and a database measured under another identity is refused unless overridden.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include <unistd.h>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "expect_error.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/gemv/heuristic.hpp"
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
  Context a(ContextOptions{write(vendor_wins, "a.json")});
  const select::Choice ca = run_checked(a, kP);
  EXPECT_EQ(ca.source, "database");
  EXPECT_EQ(ca.family, "cublaslt");
  EXPECT_EQ(ca.config, lt_config);

  select::Database ours_wins;
  select::add(ours_wins, here, kP, "sm90", sm90_config, 1.0);
  Context b(ContextOptions{write(ours_wins, "b.json")});
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
  floor.points = {{dec, {{"gemv", {1.2, "faster"}}}}, {kP, {{"sm90", {1.1, "faster"}}}}};
  const std::string path = (dir / "floor.json").string();
  select::write_json_file_atomically(select::to_json(floor), path);
  ContextOptions o;
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
}

// nn.Linear's orientation (TN, M = features, N = tokens, C column-major [F x T] = y row-major): every family's rule
// runs it correctly at the token counts the GEMV serves, with a padded ldc too.
TEST_F(ApiTest, EveryFamilysRuleRunsNnLinearsOrientation) {
  Context ctx;
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
      Context ctx(ContextOptions{write(db, fmt::format("{}-{}.json", p.name, gemv::to_string(e)))});
      const select::Choice ran = run_checked(ctx, p);
      EXPECT_EQ(ran.family, "gemv");
      EXPECT_EQ(ran.config, gemv::to_string(c));
    }
}

TEST_F(ApiTest, ADatabaseFromAnotherIdentityIsRefusedUnlessOverridden) {
  select::Identity elsewhere = running_identity();
  elsewhere.driver = "1.0 (another driver)";
  select::Database db;
  select::add(db, elsewhere, kP, "sm90", sm90::to_string(sm90::feasible_set(kP).front()), 1.0);
  const std::string path = write(db, "foreign.json");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { Context c(ContextOptions{path}); }), "driver"));
  Context c(ContextOptions{path, true});
  EXPECT_FALSE(c.overridden().empty());
  EXPECT_EQ(run_checked(c, kP).source, "database");
}

}  // namespace
}  // namespace tilewise
