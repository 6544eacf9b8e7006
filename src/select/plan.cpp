#include "select/plan.hpp"

#include "families/registry.hpp"

namespace tilewise::select {

std::unique_ptr<Plan> make_plan(const Problem& p, const Choice& c, const VendorContext& vendor, int sm_count) {
  return std::make_unique<Plan>(c, families::family(c.family).build(p, c.config, {sm_count, vendor}));
}

}  // namespace tilewise::select
