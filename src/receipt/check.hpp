#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/problem.hpp"

namespace tilewise::receipt {

struct Preregistration;
struct Receipt;

// The problems the protocol a receipt followed planned, each of which its run either measured or skipped; nullopt
// where they cannot be known here (protocol/protocol.hpp's planned_problems reads the protocol file).
using PlannedProblems = std::function<std::optional<std::vector<Problem>>(const Preregistration&)>;

// Everything wrong with a receipt's JSON, recomputing every derived figure from its samples: wrong schema,
// malformed or missing fields, a warm-up under the floor, an incorrect arm (or one carrying a throughput anyway),
// a missing arm, a timing sample that is not a time (negative, zero or not finite), timing paths that disagree on a
// long kernel, sagging clocks, a tampered figure, a problem a prediction names (or, given `planned`, one its
// protocol planned) that is in neither the results nor the skipped, a `valid` that does not match `problems`. Empty
// means valid.
std::vector<std::string> check(const nlohmann::json& receipt, const PlannedProblems& planned = {});

struct FileVerdict {
  std::string path;
  bool valid = false;
  std::vector<std::string> problems;  // recorded by the writer and found by the checker, without repeats
  size_t results = 0;
};
FileVerdict check_file(const std::string& path, const PlannedProblems& planned = {});

// The receipts at `paths`, each valid and each given once, for a use whose figures they back: throws Error naming a
// path that is not a valid receipt (and `use`, e.g. "a fit takes valid receipts only") or two paths of one file.
std::vector<std::pair<std::string, Receipt>> read_valid_receipts(const std::vector<std::string>& paths,
                                                                 const std::string& use);

}  // namespace tilewise::receipt
