#pragma once
// `tilewise check FILE...`: every committed artifact checked by what it is. Receipts by the receipt checker; tuning
// campaigns by their reader (schema, every field), every figure recomputed from its samples (tune/campaign_check.hpp)
// and the descent's promise (no finished case's latency rose);
// databases by their reader (schema, identities, entries).
#include <string>
#include <vector>

namespace tilewise::cli {

// 0 when every file is valid, 1 otherwise; one line per file, with the problems of an invalid one (`quiet`: the
// invalid files alone), then the count.
int run_check(const std::vector<std::string>& files, bool quiet = false);

}  // namespace tilewise::cli
