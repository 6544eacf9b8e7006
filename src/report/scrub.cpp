#include "report/scrub.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"

namespace tilewise::report {

namespace {

bool delimiter(char c) {
  return std::string_view(" \t\r\n,;:='\"()<>[]{}").find(c) != std::string_view::npos;
}

bool temporary(std::string_view path) {
  return path.starts_with("/tmp/") || path.starts_with("round-state/") ||
         path.find("/round-state/") != std::string_view::npos || path.find("/tmp/") != std::string_view::npos;
}

// The last non-empty component: "/tmp/tmp.X/db.json" -> "db.json", "round-state/fresh/" -> "fresh".
std::string_view last_component(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path.substr(path.rfind('/') + 1);
}

void scrub_strings(nlohmann::json& j) {
  if (j.is_string()) j = without_temporary_folders(j.get<std::string>());
  else if (j.is_structured())
    for (auto& v : j) scrub_strings(v);
}

}  // namespace

std::string without_temporary_folders(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (delimiter(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && !delimiter(text[end])) ++end;
    const std::string_view token = text.substr(i, end - i);
    out += temporary(token) ? last_component(token) : token;
    i = end;
  }
  return out;
}

void drop_temporary_folders(receipt::Receipt& r, const std::string& path) {
  nlohmann::json j = r;
  scrub_strings(j);
  receipt::Receipt scrubbed = j.get<receipt::Receipt>();
  std::set<std::string> arms;
  for (size_t i = 0; i < r.protocol.arms.size(); ++i)
    if (!arms.insert(scrubbed.protocol.arms[i]).second)
      throw Error(fmt::format("{}: its arms {} and another read the same without their temporary folders ({})", path,
                              r.protocol.arms[i], scrubbed.protocol.arms[i]));
  r = std::move(scrubbed);
}

}  // namespace tilewise::report
