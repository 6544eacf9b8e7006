#include "tune/campaign.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/file.hpp"
#include "select/json_file.hpp"
#include "tune/campaign_check.hpp"
#include "tune/descent.hpp"

namespace tilewise::tune {

using nlohmann::json;

json to_json(const Campaign& c) {
  json cases = json::array();
  for (const CaseResult& r : c.cases) cases.push_back(to_json(r));
  return {{"schema", kCampaignSchema}, {"mode", c.mode}, {"identity", select::to_json(c.identity)}, {"cases", cases}};
}

Campaign read_campaign(const std::string& path) { return parse_campaign(select::read_json_file(path), path); }

Campaign parse_campaign(const json& j, const std::string& origin) {
  const select::At doc{j, origin, ""};
  if (const std::string schema = doc["schema"].string(); schema != kCampaignSchema)
    doc["schema"].fail(fmt::format("'{}' is not {}", schema, kCampaignSchema));
  Campaign c;
  c.mode = doc["mode"].string();
  c.identity = select::parse_identity(doc["identity"]);
  const select::At cases = doc["cases"];
  for (size_t i = 0; i < cases.array().size(); ++i)
    c.cases.push_back(parse_case_result(cases[i].value, origin, fmt::format("/cases/{}", i)));
  return c;
}

namespace {

// Why a recorded case cannot be continued under what this run would tune, or "" when it can.
std::string changed(const CaseResult& recorded, const CaseResult& fresh) {
  if (recorded.c.family != fresh.c.family) return fmt::format("family {} then, {} now", recorded.c.family, fresh.c.family);
  if (recorded.c.problem != fresh.c.problem)
    return fmt::format("problem {} then, {} now", describe(recorded.c.problem), describe(fresh.c.problem));
  if (recorded.warm_start != fresh.warm_start)
    return fmt::format("warm start {} then, {} now", recorded.warm_start, fresh.warm_start);
  if (recorded.space_digest != fresh.space_digest)
    return fmt::format("search space {} then, {} now", recorded.space_digest, fresh.space_digest);
  return "";
}

}  // namespace

void require_campaign_mode(const std::string& mode, std::string_view what) {
  if (std::find(kCampaignModes.begin(), kCampaignModes.end(), mode) == kCampaignModes.end())
    throw Error(fmt::format("{} '{}' is not {}", what, mode, fmt::join(kCampaignModes, " or ")));
}

Campaign run_campaign(const std::string& path, const std::vector<Case>& cases, const TunableFor& tunable_for,
                      Measure& measure, const select::Identity& identity, const CampaignOptions& options) {
  require_campaign_mode(options.mode, "campaign mode");
  Campaign campaign{options.mode, identity, {}};
  if (files::exists(path, "the campaign file")) {
    campaign = read_campaign(path);
    require_sound(campaign, path);
    if (campaign.mode != options.mode)
      throw Error(fmt::format("{}: a {} campaign cannot be continued in {} mode", path, campaign.mode, options.mode));
    if (const auto why = select::mismatch(campaign.identity, identity))
      throw Error(fmt::format("{}: started on another machine ({}); a trajectory timed on two machines is not "
                              "monotone by anything it measured: start a new campaign file", path, *why));
  }
  const auto save = [&] { select::write_json_file_atomically(to_json(campaign), path); };

  for (const Case& c : cases) {
    auto slot = std::find_if(campaign.cases.begin(), campaign.cases.end(),
                             [&](const CaseResult& r) { return r.c.id == c.id; });
    if (slot != campaign.cases.end() && slot->status == Status::finished) continue;
    CaseResult fresh;
    Tunable t;
    try {
      t = tunable_for(c);
      fresh = start_case(c, t, options.mode);
    } catch (const Error& e) {
      fresh.c = c;
      fresh.mode = options.mode;
      fresh.status = Status::failed;
      fresh.error = e.what();
    }
    if (slot == campaign.cases.end()) {
      campaign.cases.push_back(fresh);
      slot = campaign.cases.end() - 1;
    } else if (fresh.status == Status::failed || slot->status == Status::failed) {
      *slot = fresh;  // a failed case starts over
    } else if (const std::string why = changed(*slot, fresh); !why.empty()) {
      throw Error(fmt::format("{}: case '{}' was started under something else ({}): start a new campaign file",
                              path, c.id, why));
    }
    const size_t index = size_t(slot - campaign.cases.begin());
    if (campaign.cases[index].status == Status::failed) {
      save();
      continue;
    }
    try {
      if (options.mode == "grid") {
        grid(campaign.cases[index], t, measure, options.grid);
      } else {
        descend(campaign.cases[index], t, measure, [&](const CaseResult&) { save(); });
      }
    } catch (const Error& e) {
      // A case the family or the measurement refuses; an interruption (any other exception) propagates instead.
      campaign.cases[index].status = Status::failed;
      campaign.cases[index].error = e.what();
    }
    save();
  }
  return campaign;
}

}  // namespace tilewise::tune
