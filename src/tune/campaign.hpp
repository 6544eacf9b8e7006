#pragma once
// A tuning campaign: many cases, one file. The file is rewritten atomically after every finished round and case, so
// a campaign stopped at any point (a crash, a lost machine, a time limit) continues where it stopped: finished cases
// are skipped, an interrupted one continues from its last finished round with the configuration it held.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "select/identity.hpp"
#include "tune/grid.hpp"
#include "tune/trajectory.hpp"

namespace tilewise::tune {

inline constexpr std::string_view kCampaignSchema = "tilewise.campaign/1";

// How a campaign searches: a monotone descent, one group a round, or a one-shot capped grid.
inline const std::vector<std::string> kCampaignModes = {"descent", "grid"};
// Throws Error "`what` 'mode' is not descent or grid" unless `mode` is one of kCampaignModes.
void require_campaign_mode(const std::string& mode, std::string_view what);

struct Campaign {
  std::string mode;            // "descent" or "grid"
  select::Identity identity;   // what measured it: a trajectory is only monotone if one machine timed it all
  std::vector<CaseResult> cases;
  bool operator==(const Campaign&) const = default;
};

struct CampaignOptions {
  std::string mode = "descent";
  GridOptions grid;
};

// The family's space and warm start for one case's problem.
using TunableFor = std::function<Tunable(const Case&)>;

// Runs every case of `cases` that the campaign file at `path` (created when absent) has not finished, in order,
// and returns the campaign. Refuses (Error) a file whose mode or identity differs, or a case whose family, problem,
// warm start or space changed since it was started: resuming would mix two searches. A case that cannot be tuned
// (infeasible warm start, nothing timed) is recorded as failed with the reason and retried on the next run; an
// exception from `measure` (an interruption) propagates, leaving the file at the last finished round.
Campaign run_campaign(const std::string& path, const std::vector<Case>& cases, const TunableFor& tunable_for,
                      Measure& measure, const select::Identity& identity, const CampaignOptions& options = {});

nlohmann::json to_json(const Campaign& c);
Campaign read_campaign(const std::string& path);  // Error naming path:line:column or the JSON pointer
Campaign parse_campaign(const nlohmann::json& j, const std::string& origin);  // Error naming origin and the pointer

}  // namespace tilewise::tune
