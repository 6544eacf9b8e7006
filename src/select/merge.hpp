#pragma once
// Several databases (campaigns run in parts, on several days) merged into one. The same key and family with different
// entries is a conflict: the faster entry is kept when both were measured under the same identity (the same machine
// timed both, so the times compare); across identities the times do not compare, and the merge fails naming the key.
#include <string>
#include <utility>
#include <vector>

#include "select/database.hpp"

namespace tilewise::select {

struct Named {
  std::string origin;  // a path, for the error messages
  Database db;
};

Database merge(const std::vector<Named>& databases);
// `databases` merged, then each entry of the merged `overlays` put in place of theirs for the same key and family,
// whatever the times: a database tuned under another protocol (cold, over one tuned warm), whose times do not compare
// with the others'.
Database merge(const std::vector<Named>& databases, const std::vector<Named>& overlays);

}  // namespace tilewise::select
