#include "tune/config.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tilewise::tune {

Config parse(std::string_view text) {
  Config c;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos || eq == 0)
      throw Error(fmt::format("configuration '{}': '{}' is not key=value", text, item));
    const std::string key(item.substr(0, eq));
    if (find(c, key)) throw Error(fmt::format("configuration '{}': {} is given twice", text, key));
    c.fields.emplace_back(key, std::string(item.substr(eq + 1)));
    pos = end + 1;
  }
  return c;
}

std::string to_string(const Config& c) {
  std::string out;
  for (const auto& [key, value] : c.fields) out += fmt::format("{}{}={}", out.empty() ? "" : ",", key, value);
  return out;
}

const std::string* find(const Config& c, std::string_view key) {
  for (const auto& [k, v] : c.fields)
    if (k == key) return &v;
  return nullptr;
}

Config apply(Config base, const Config& change) {
  for (const auto& field : change.fields) {  // not a structured binding: clang before 16 cannot capture one
    const std::string& key = field.first;
    const auto it = std::find_if(base.fields.begin(), base.fields.end(), [&](const auto& f) { return f.first == key; });
    if (it == base.fields.end())
      throw Error(fmt::format("configuration '{}' has no field '{}' to set", to_string(base), key));
    it->second = field.second;
  }
  return base;
}

Config project(const Config& c, const std::vector<std::string>& keys) {
  Config out;
  for (const std::string& key : keys) {
    const std::string* v = find(c, key);
    if (!v) throw Error(fmt::format("configuration '{}' has no field '{}'", to_string(c), key));
    out.fields.emplace_back(key, *v);
  }
  return out;
}

}  // namespace tilewise::tune
