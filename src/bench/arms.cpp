#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/arm.hpp"
#include "bench/selected_arm.hpp"
#include "core/error.hpp"
#include "families/registry.hpp"

namespace tilewise::bench {

namespace {

std::vector<std::string> known_arms() {
  std::vector<std::string> out;
  for (const families::Family* f : families::all_families())
    for (std::string& name : f->arm_names()) out.push_back(std::move(name));
  out.insert(out.end(), {"selected", "selected:floor", "selected:floor:<floor.json>", "selected:<database.json>",
                         "selected:tune:<database.json>"});
  return out;
}

}  // namespace

std::unique_ptr<Arm> make_arm(const std::string& name) {
  for (const families::Family* f : families::all_families())
    if (auto arm = f->make_arm(name)) return arm;
  if (auto arm = make_selected_arm(name)) return arm;
  throw Error(fmt::format("unknown arm '{}' (known: {})", name, fmt::join(known_arms(), ", ")));
}

}  // namespace tilewise::bench
