#pragma once
// Which receipts a newer one replaces: a re-run of the same measurement (the same tool, GPU, buffer mode, suites,
// arms and problems, leading dimensions included) makes the older receipt history. The page shows superseded
// receipts behind a link only.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "report/page.hpp"

namespace tilewise::report {

// How recent a receipt is, the `place` it has in a list of them: later is by `created`, then, where equal (or not a
// time), by place. The one order in which newer figures replace older ones, on the page and in the headline.
using Recency = std::pair<int64_t, size_t>;
Recency recency(const receipt::Receipt& r, size_t place);

// For each receipt, the index of the receipt that supersedes it: the most recent valid one of the same measurement
// (by `created`; equal times go to the receipt later in the list), where that one is more recent. An invalid
// receipt supersedes nothing.
std::vector<std::optional<size_t>> superseded_by(const std::vector<PageReceipt>& receipts);

}  // namespace tilewise::report
