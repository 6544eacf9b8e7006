#pragma once
// Comma-separated command-line lists ("bf16,fp8"), shared by the subcommands.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace tilewise::cli {

// The items of a comma-separated list, in order; "" is the empty list. An empty item ("bf16,,fp8", ",") or one
// given twice throws Error naming `option`: either would drop or repeat work without a word.
inline std::vector<std::string> split_list(const std::string& s, std::string_view option) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t end = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, end - pos);
    if (item.empty()) throw Error(fmt::format("{} '{}' has an empty item", option, s));
    if (std::find(out.begin(), out.end(), item) != out.end())
      throw Error(fmt::format("{} '{}' names {} twice", option, s, item));
    out.push_back(item);
    pos = end + 1;
  }
  return out;
}

}  // namespace tilewise::cli
