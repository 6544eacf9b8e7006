#pragma once
// Comma-separated command-line lists ("bf16,fp8"), shared by the subcommands.
#include <algorithm>
#include <string>
#include <vector>

namespace tilewise::cli {

// The non-empty items of a comma-separated list, in order.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t end = std::min(s.find(',', pos), s.size());
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace tilewise::cli
