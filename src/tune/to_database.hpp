#pragma once
// A finished campaign as the database selection loads: per case, the configuration it ended on and that
// configuration's median in the last round that timed it, under the campaign's identity.
#include <string>

#include "select/database.hpp"
#include "tune/campaign.hpp"

namespace tilewise::tune {

// Finished cases only (a running or failed one has no result to trust); `source` names the campaign in each entry.
select::Database to_database(const Campaign& c, const std::string& source);

}  // namespace tilewise::tune
