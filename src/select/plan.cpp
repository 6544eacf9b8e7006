#include "select/plan.hpp"

#include "families/registry.hpp"

namespace tilewise::select {

std::unique_ptr<Plan> make_plan(const Problem& p, const Choice& c, const families::Resources& r) {
  return std::make_unique<Plan>(c, families::family(c.family).build(p, c.config, r));
}

}  // namespace tilewise::select
