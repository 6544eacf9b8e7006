// libFuzzer harness: a tuning campaign's JSON through its reader and its checker (tune/campaign_check.hpp), and the
// report's figures of one that holds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "core/json.hpp"
#include "tune/campaign.hpp"
#include "tune/campaign_check.hpp"
#include "tune/contributions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace tune = tilewise::tune;
  try {
    const tune::Campaign c =
        tune::parse_campaign(tilewise::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz"),
                             "fuzz");
    if (tune::check_campaign(c).empty()) {
      tune::rises(c.cases);
      tune::format_contributions(tune::contributions(c.cases));
    }
  } catch (const tilewise::Error&) {
  }
  return 0;
}
