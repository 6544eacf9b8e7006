// The per-machine database first-use tuning keeps: what one process records, the next reads back; several processes
// recording at once lose nothing; a writer killed mid-write leaves a whole file; a corrupt file is never overwritten.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/suite.hpp"
#include "expect_error.hpp"
#include "sample_database.hpp"
#include "select/database_file.hpp"
#include "select/machine_database.hpp"

namespace tilewise::select {
namespace {

using testkit::problem;

class MachineDatabase : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("tw_machine_db_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    path = (dir / "cache" / "database.json").string();  // its folders do not exist yet
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  static Choice lt(double us) { return {"cublaslt", testkit::kLt, "first use", us}; }

  std::filesystem::path dir;
  std::string path;
};

TEST_F(MachineDatabase, WhatOneProcessRecordsTheNextReadsBack) {
  record_tuned(path, testkit::kH200, problem(6144, 8, 4096), lt(20.0), "first use 0.8 s");
  record_tuned(path, testkit::kH200, problem(6144, 16, 4096), lt(22.0), "first use 0.9 s");
  const Database db = read_database(path);
  ASSERT_EQ(db.records.size(), 2u);
  const Entry* e = lookup(db, problem(6144, 8, 4096), "cublaslt");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->us, 20.0);
  EXPECT_EQ(e->source, "first use 0.8 s");
  // The same signature again on this machine keeps the faster; retuned under a new driver, the new one replaces it.
  record_tuned(path, testkit::kH200, problem(6144, 8, 4096), lt(25.0), "slower");
  EXPECT_EQ(lookup(read_database(path), problem(6144, 8, 4096), "cublaslt")->us, 20.0);
  record_tuned(path, testkit::other_driver(), problem(6144, 8, 4096), lt(26.0), "new driver");
  const Database after = read_database(path);
  const Entry* retuned = lookup(after, problem(6144, 8, 4096), "cublaslt");
  EXPECT_EQ(retuned->us, 26.0);
  EXPECT_EQ(identity_of(after, *retuned), testkit::other_driver());
}

TEST_F(MachineDatabase, SeveralProcessesRecordingAtOnceLoseNothing) {
  constexpr int kProcesses = 4, kEach = 20;
  std::vector<pid_t> children;
  for (int w = 0; w < kProcesses; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        for (int i = 0; i < kEach; ++i) {
          record_tuned(path, testkit::kH200, problem(4096, 1 + w * kEach + i, 4096), lt(10.0 + i), "");
          record_tuned(path, testkit::kH200, problem(8192, 8, 8192), lt(50.0 - w), "");  // the same shape in all
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const Database db = read_database(path);
  EXPECT_EQ(db.records.size(), size_t(kProcesses * kEach + 1));
  EXPECT_EQ(lookup(db, problem(8192, 8, 8192), "cublaslt")->us, 50.0 - (kProcesses - 1));  // the fastest kept
}

TEST_F(MachineDatabase, AWriterKilledMidWriteLeavesAWholeFileAndNoLock) {
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipe_fd[0]);
    for (int i = 1;; ++i) {  // until killed
      record_tuned(path, testkit::kH200, problem(4096, i, 4096), lt(10.0), std::string(2000, 'x'));
      if (::write(pipe_fd[1], &i, sizeof i) != sizeof i) ::_exit(1);
    }
  }
  ::close(pipe_fd[1]);
  int done = 0;
  for (int i = 0; i < 30; ++i) ASSERT_EQ(::read(pipe_fd[0], &done, sizeof done), ssize_t(sizeof done));
  ::usleep(3000);  // somewhere inside a later write
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(pipe_fd[0]);
  const Database db = read_database(path);  // parses: never half a file
  for (int i = 1; i <= done; ++i) EXPECT_NE(lookup(db, problem(4096, i, 4096), "cublaslt"), nullptr) << i;
  record_tuned(path, testkit::kH200, problem(2048, 2048, 2048), lt(5.0), "");  // the lock died with its holder
  EXPECT_EQ(read_database(path).records.size(), db.records.size() + 1);
}

TEST_F(MachineDatabase, ACorruptFileIsNamedAndLeftAsItWas) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  { std::ofstream(path) << "{\"schema\": \"tilewise.database/1\", \"entries\": ["; }
  const std::string before = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string error =
      testkit::error_of([&] { record_tuned(path, testkit::kH200, problem(64, 64, 64), lt(1.0), ""); });
  EXPECT_TRUE(testkit::Contains(error, path)) << error;
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), before);
}

TEST_F(MachineDatabase, RecordedSignaturesAreASuiteOfTheSameProblemsOnceEach) {
  const std::string suite = (dir / "signatures.txt").string();
  Problem padded = make_problem("", 6144, 8, 4096, DType::bf16, Layout::TN, 64);
  const Problem nn = make_problem("", 16, 4096, 4096, DType::fp16, Layout::NN, 0);
  for (int i = 0; i < 3; ++i) {
    record_signature(suite, padded);
    record_signature(suite, nn);
  }
  const Suite s = load_suite(suite);
  ASSERT_EQ(s.entries.size(), 2u);
  const std::vector<SuiteCase> cases = expand_suites({suite}, {}, {DType::bf16}, {Layout::TN});
  ASSERT_EQ(cases.size(), 2u);
  Problem back = make_problem(cases[0]);
  back.name.clear();
  EXPECT_EQ(back, padded);
  back = make_problem(cases[1]);
  back.name.clear();
  EXPECT_EQ(back, nn);
}

}  // namespace
}  // namespace tilewise::select
