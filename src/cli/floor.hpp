#pragma once
// `tilewise sweep`: the seeded problem generator (core/sweep.hpp) written as a suite; `tilewise floor fit`: the
// floor's rule (select/floor.hpp) fitted on one half of a sweep's receipts and judged on the other, written where the
// library embeds it (data/floor-h200.json) with a markdown report. Neither needs a GPU.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tilewise::cli {

class FloorCommands {
 public:
  explicit FloorCommands(CLI::App& app);
  std::optional<int> run();  // the exit status of the command given, if it was one of these

 private:
  CLI::App* sweep_ = nullptr;
  CLI::App* fit_ = nullptr;
  uint64_t seed_ = 0;
  int count_ = 600;
  std::string part_ = "all", output_, report_;
  std::vector<std::string> fit_receipts_, judge_receipts_;
  bool overwrite_ = false;
};

}  // namespace tilewise::cli
