#include "cli/check.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "protocol/protocol.hpp"
#include "receipt/check.hpp"
#include "select/database_file.hpp"
#include "select/floor.hpp"
#include "select/json_file.hpp"
#include "tune/campaign.hpp"
#include "tune/campaign_check.hpp"
#include "tune/contributions.hpp"

namespace tilewise::cli {

namespace {

struct Verdict {
  bool valid = false;
  std::string summary;                // what the file holds, for a valid one
  std::vector<std::string> problems;  // why it is not valid
};

// The schema a JSON artifact names, or "" when it names none or does not parse (the receipt checker reports that).
std::string schema_of(const std::string& path) {
  try {
    const nlohmann::json j = select::read_json_file(path);
    if (j.is_object() && j.contains("schema") && j["schema"].is_string()) return j["schema"].get<std::string>();
  } catch (const Error&) {
  }
  return "";
}

Verdict campaign_verdict(const std::string& path) {
  const tune::Campaign c = tune::read_campaign(path);
  int finished = 0;
  for (const tune::CaseResult& r : c.cases) finished += r.status == tune::Status::finished;
  std::vector<std::string> problems = tune::check_campaign(c);
  for (const std::string& rise : tune::rises(c.cases)) problems.push_back("latency rose: " + rise);
  if (!problems.empty()) return {false, "", problems};
  return {true, fmt::format("campaign, {} mode: {} cases, {} finished; every figure matches its samples, latency never "
                            "rose", c.mode, c.cases.size(), finished), {}};
}

Verdict check_database(const std::string& path) {
  const select::Database db = select::read_database(path);
  return {true, fmt::format("database: {} problems, {} identities", db.records.size(), db.identities.size()), {}};
}

// The floor's rule as the library reads it (data/floor-h200.json): every field and point parses.
Verdict check_floor(const std::string& path) {
  const select::FloorRule r = select::read_floor(path);
  return {true,
          fmt::format("floor: {} points from {} receipts, measured on {} ({} SMs), {} neighbours within {}; {} "
                      "outcomes timed a configuration the family's rule no longer chooses (they count as not faster)",
                      r.points.size(), r.receipts.size(), r.gpu, r.sm_count, r.neighbours, r.radius,
                      select::count_not_current(r)),
          {}};
}

// A receipt that followed a protocol is also held to the problems the protocol planned, where they can be read here.
Verdict check_receipt(const std::string& path) {
  const receipt::FileVerdict v = receipt::check_file(path, protocol::planned_problems);
  return {v.valid, fmt::format("{} results", v.results), v.problems};
}

// Whatever goes wrong with one file is that file's verdict: the lines already printed for the others stand.
Verdict check(const std::string& path) {
  try {
    const std::string schema = schema_of(path);
    if (schema == tune::kCampaignSchema) return campaign_verdict(path);
    if (schema == select::kDatabaseSchema) return check_database(path);
    if (schema == select::kFloorSchema) return check_floor(path);
    return check_receipt(path);
  } catch (const std::exception& e) {
    return {false, "", {e.what()}};
  }
}

}  // namespace

int run_check(const std::vector<std::string>& files, bool quiet) {
  int invalid = 0;
  for (const std::string& f : files) {
    const Verdict v = check(f);
    if (v.valid) {
      if (!quiet) fmt::print("valid    {} ({})\n", f, v.summary);
      continue;
    }
    ++invalid;
    fmt::print("INVALID  {}\n", f);
    for (const std::string& p : v.problems) fmt::print("         - {}\n", p);
  }
  if (files.size() > 1 || quiet) fmt::print("{} of {} files valid\n", files.size() - size_t(invalid), files.size());
  return invalid ? 1 : 0;
}

}  // namespace tilewise::cli
