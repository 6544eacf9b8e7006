// The arm `selected` (the library API tilewise::gemm) passes the harness's correctness gate on every problem of the
// suites, in every dtype and layout, and records what it ran.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "bench/arm.hpp"
#include "core/suite.hpp"
#include "families/sm90/gemm.hpp"
#include "arm_bench.hpp"
#include "gpu.hpp"
#include "jit/cache.hpp"
#include "receipt/derive.hpp"
#include "select/api.hpp"
#include "select/choice.hpp"
#include "select/floor.hpp"
#include "select/shipped.hpp"

namespace tilewise::bench {
namespace {

std::vector<Problem> suite_problems() {
  std::vector<Problem> out;
  for (const char* suite : {"decode.txt", "llm24.txt", "square.txt"})
    for (const SuiteEntry& e : load_suite(testkit::source_dir() + "/suites/" + suite).entries)
      for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
        for (Layout l : {Layout::TN, Layout::NN})
          if (d != DType::fp8_e4m3 || l == Layout::TN) out.push_back(make_problem(e.name, e.M, e.N, e.K, d, l));
  return out;
}

TEST(SelectedArm, CorrectOnEverySuiteProblem) {
  TW_REQUIRE_GPU();
  const std::vector<Problem> problems = suite_problems();
  // The heuristic's sm90 kernels compiled up front, in parallel, as the tuner does; the arm then loads them.
  int sms = 0;
  TW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::map<std::string, jit::KernelBuild> builds;  // many problems share an instantiation
  for (const Problem& p : problems)
    for (const select::Choice& c : select::rule_choices(p, sms))
      if (c.family == "sm90") {
        jit::KernelBuild b = sm90::kernel_build(sm90::parse_config(c.config), p);
        builds.emplace(b.name_expression, b);
      }
  std::vector<jit::KernelBuild> unique;
  for (const auto& [_, b] : builds) unique.push_back(b);
  jit::build_all(unique);

  device::Stream s;
  std::map<std::string, int> families;  // of the floor's choices
  int from_database = 0;                // of the library's defaults
  for (const Problem& p : problems) {
    for (const char* name : {"selected:floor", "selected"}) {  // the rule under the floor; the shipped database over it
      SCOPED_TRACE(describe(p) + " | " + name);
      const testkit::ArmBench bench(p, 1, 5, s.get(), 1);
      const Workbench& wb = bench.wb;
      auto arm = make_arm(name);
      arm->prepare(wb);
      const nlohmann::json config = arm->config();
      SCOPED_TRACE(config.dump());
      const bool floor = std::string_view(name) == "selected:floor";
      if (floor) EXPECT_NE(config["source"], "database");
      EXPECT_FALSE(config["config"].get<std::string>().empty());
      if (floor) ++families[config["family"].get<std::string>()];
      if (!floor && config["source"] == "database") ++from_database;
      const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
      const device::OutputError e = checked_run(wb, launch);
      EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)))
          << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
    }
  }
  // cuBLASLt ran somewhere (decode NN: lda = M is under TMA's 16 bytes); which problems the shipped floor gives our
  // families depends on its sweep (select/api_gpu_test.cpp runs every family through a floor of its own).
  EXPECT_GT(families["cublaslt"], 0);
  // The shipped database was tuned on these suites (data/database-h200.json). Where the identity policy admits it
  // here, choices come from it; where it refuses (another GPU: an H100 ran this test in the seventeenth session),
  // none may.
  const select::Compatibility here =
      select::compatibility(select::shipped_database().identities.at(0), running_identity());
  if (here.refuse.empty())
    EXPECT_GT(from_database, 0);
  else
    EXPECT_EQ(from_database, 0) << fmt::format("{}", fmt::join(here.refuse, "; "));
}

// selected:floor:<file> runs that floor in place of the built-in one: on a problem the built-in floor gives sm90 (on
// the GPU it was measured on), a floor with no points leaves it to cuBLASLt's heuristic.
TEST(SelectedArm, AFloorFileReplacesTheBuiltInFloor) {
  TW_REQUIRE_GPU();
  const Problem p = make_problem("s20261203_0019_col", 234, 31872, 256, DType::fp16, Layout::TN);
  nlohmann::json empty = select::to_json(select::shipped_floor());
  empty["points"] = nlohmann::json::array();
  const std::string path = (std::filesystem::temp_directory_path() / "tilewise-selected-arm-empty-floor.json").string();
  std::ofstream(path) << empty.dump();
  device::Stream s;
  const auto source_of = [&](const std::string& name) {
    const testkit::ArmBench bench(p, 1, 5, s.get(), 1);
    auto arm = make_arm(name);
    arm->prepare(bench.wb);
    const nlohmann::json config = arm->config();
    EXPECT_EQ(config.contains("floor_file"), name.starts_with("selected:floor:")) << config.dump();
    const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
    const device::OutputError e = checked_run(bench.wb, launch);
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)));
    return config["source"].get<std::string>();
  };
  if (select::holds_on(select::shipped_floor(), running_identity())) EXPECT_EQ(source_of("selected:floor"), "floor");
  EXPECT_EQ(source_of("selected:floor:" + path), "heuristic");
  std::filesystem::remove(path);
}

TEST(SelectedArm, ANamedDatabaseThatIsMissingIsRefusedUpFront) {
  EXPECT_THROW(make_arm("selected:/nonexistent/db.json"), Error);
}

}  // namespace
}  // namespace tilewise::bench
