#include "families/space.hpp"

#include <algorithm>

namespace tilewise::families {

Group with_alternatives(Group g, const std::vector<Fields>& feasible) {
  for (const Fields& c : feasible) {
    Fields alt = project(c, g.fields);
    if (std::find(g.alternatives.begin(), g.alternatives.end(), alt) == g.alternatives.end())
      g.alternatives.push_back(std::move(alt));
  }
  return g;
}

}  // namespace tilewise::families
