#pragma once
// Preregistration: a protocol file (TOML) states the question, the instrument that answers it, and numeric
// predictions with falsifiers. It is committed before the run; the run records that commit and the tool judges
// every prediction into the receipt, missed or not.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/runner.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::protocol {

struct ProtocolFile {
  std::string path;
  std::string question;
  bench::Options instrument;                       // suites, only, dtypes, layouts, arms, baseline, cold, repeats
  std::vector<receipt::Prediction> predictions;    // without measured values or verdicts
};

// Throws Error "path:line: what is wrong" for TOML syntax errors, missing fields, an unknown arm, metric, dtype or
// layout, an inverted range, a speedup without a baseline, a duplicate prediction id.
ProtocolFile parse_protocol(std::string_view text, const std::string& path);
ProtocolFile load_protocol(const std::string& path);

// The commit that froze the protocol and the suites it reads (the newest commit that touched any of them): throws Error
// naming the file when one is not committed or has uncommitted changes, or when git cannot say.
std::string frozen_commit(const ProtocolFile& pf);

// The problems the protocol a receipt followed planned (bench::planned_problems of its instrument), for the checker
// (receipt/check.hpp): read from the protocol file at `pre.path` where it and the suites it reads are as the
// recorded commit froze them (the same newest commit, nothing uncommitted); nullopt where they are not, or where the
// file, or git, cannot be read from the working folder.
std::optional<std::vector<Problem>> planned_problems(const receipt::Preregistration& pre);

}  // namespace tilewise::protocol
