// `tilewise bench` refuses bad options with a message naming the problem, and without a GPU says which commands
// still work, before touching anything.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/runner.hpp"
#include "core/error.hpp"
#include "device/cuda.hpp"
#include "gpu.hpp"

namespace tilewise::bench {
namespace {

Options valid_options() {
  Options o;
  o.suites = {std::string(TILEWISE_SOURCE_DIR) + "/suites/llm24.txt"};
  o.only = {"sqS"};
  o.output = (std::filesystem::temp_directory_path() / "tilewise-runner-test.json").string();
  return o;
}

void expect_error(const Options& o, const std::string& fragment) {
  try {
    run(o, nullptr);
    FAIL() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BenchOptions, UnknownArm) {
  Options o = valid_options();
  o.arms = {"cublaslt", "magic"};
  expect_error(o, "unknown arm 'magic'");
}

TEST(BenchOptions, BaselineMustBeAnArm) {
  Options o = valid_options();
  o.arms = {"cublaslt"};
  expect_error(o, "baseline arm 'cublaslt-default'");
}

TEST(BenchOptions, MissingSuiteFile) {
  Options o = valid_options();
  o.suites = {"/nonexistent/suite.txt"};
  expect_error(o, "/nonexistent/suite.txt");
}

TEST(BenchOptions, OnlyNamesAProblemNoSuiteHolds) {
  Options o = valid_options();
  o.only = {"sqS", "nope"};
  expect_error(o, "'nope'");
}

TEST(BenchOptions, RepeatsMustBePositive) {
  Options o = valid_options();
  o.repeats = 0;
  expect_error(o, "--repeats 0");
}

TEST(BenchOptions, ArmGivenTwice) {
  Options o = valid_options();
  o.arms = {"cublaslt", "cublaslt-default", "cublaslt"};
  expect_error(o, "given twice");
}

// What bench -o is checked against: the suites, the protocol, and the files the arms read, each as given.
TEST(BenchOptions, InputFilesAreTheSuitesTheProtocolAndTheArmsFiles) {
  Options o = valid_options();
  const std::string floor = std::string(TILEWISE_SOURCE_DIR) + "/data/floor-h200.json";
  o.arms = {"cublaslt-default", "selected:floor:" + floor, "selected:tune:kept.json"};
  o.preregistration = receipt::Preregistration{"p.toml", "c", "q", {}};
  EXPECT_EQ(input_files(o), (std::vector<std::string>{o.suites[0], "p.toml", floor, "kept.json"}));
  o.arms = {"cublaslt", "nosuch"};
  EXPECT_THROW(input_files(o), Error);
}

TEST(BenchWithoutGpu, SaysWhyAndWritesNothing) {
  if (testkit::has_gpu()) GTEST_SKIP() << "a GPU is present";
  const Options o = valid_options();
  expect_error(o, "no CUDA GPU is usable here (");
  EXPECT_THROW(run(o, nullptr), device::NoGpu);
  EXPECT_FALSE(std::filesystem::exists(o.output)) << "a receipt was written without a GPU";
}

}  // namespace
}  // namespace tilewise::bench
