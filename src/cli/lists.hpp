#pragma once
// Comma-separated command-line lists ("bf16,fp8"), shared by the subcommands.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/problem.hpp"

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

// --dtypes and --layouts: at least one, each parsed (an unknown name throws Error naming it).
inline std::vector<DType> parse_dtypes(const std::string& s) {
  std::vector<DType> out;
  for (const std::string& item : split_list(s, "--dtypes")) out.push_back(parse_dtype(item));
  if (out.empty()) throw Error("--dtypes names no dtype");
  return out;
}
inline std::vector<Layout> parse_layouts(const std::string& s) {
  std::vector<Layout> out;
  for (const std::string& item : split_list(s, "--layouts")) out.push_back(parse_layout(item));
  if (out.empty()) throw Error("--layouts names no layout");
  return out;
}

}  // namespace tilewise::cli
