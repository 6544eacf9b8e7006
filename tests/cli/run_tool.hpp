#pragma once
// Runs the tilewise binary as a user would, for the command-line tests: its exit status, what it printed, and whether
// it had to be killed for running past a deadline (a hang is a failure, never a wait).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace tilewise::testkit {

struct Ran {
  int status = -1;       // the exit status, or 128 + the signal that ended it
  std::string out, err;  // stdout and stderr
  bool hung = false;
  std::string all() const { return out + err; }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Runs TILEWISE_BIN with `args` in the folder `cwd`, the environment changed by `env` (an empty value unsets it).
inline Ran run_tool(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                    const std::map<std::string, std::string>& env = {}, int deadline_s = 120) {
  const std::filesystem::path out = cwd / ".tool-stdout", err = cwd / ".tool-stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& [name, value] : env) value.empty() ? unsetenv(name.c_str()) : setenv(name.c_str(), value.c_str(), 1);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    std::vector<char*> argv{const_cast<char*>(TILEWISE_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(TILEWISE_BIN, argv.data());
    _exit(127);
  }
  Ran r;
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(deadline_s);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      r.hung = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Success when the run ended by itself with `status` and printed `part`.
inline ::testing::AssertionResult Ends(const Ran& r, int status, const std::string& part) {
  if (!r.hung && r.status == status && r.all().find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << (r.hung ? "hung; " : "") << "status " << r.status << " (expected " << status
                                       << ", looking for '" << part << "')\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
}

}  // namespace tilewise::testkit
