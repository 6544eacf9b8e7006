#include "families/fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/error.hpp"

namespace tilewise::families {

Fields parse_fields(std::string_view text, std::string_view what) {
  Fields f;
  if (text.empty()) return f;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    if (item.empty()) throw Error(fmt::format("{} '{}': an empty field", what, text));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) throw Error(fmt::format("{} '{}': '{}' is not key=value", what, text, item));
    if (item.find('=', eq + 1) != std::string_view::npos)
      throw Error(fmt::format("{} '{}': '{}' holds more than one '=': fields are separated by ','", what, text, item));
    const std::string_view key = item.substr(0, eq);
    if (find(f, key)) throw Error(fmt::format("{} '{}': {} is given twice", what, text, key));
    f.fields.emplace_back(key, item.substr(eq + 1));
    pos = end + 1;
  }
  return f;
}

std::string to_string(const Fields& f) {
  std::string out;
  for (const auto& [key, value] : f.fields) out += fmt::format("{}{}={}", out.empty() ? "" : ",", key, value);
  return out;
}

const std::string* find(const Fields& f, std::string_view key) {
  for (const auto& [k, v] : f.fields)
    if (k == key) return &v;
  return nullptr;
}

std::vector<std::string> keys(const Fields& f) {
  std::vector<std::string> out;
  for (const auto& [k, v] : f.fields) out.push_back(k);
  return out;
}

Fields apply(Fields base, const Fields& change) {
  for (const auto& field : change.fields) {  // not a structured binding: clang before 16 cannot capture one
    const std::string& key = field.first;
    const auto it = std::find_if(base.fields.begin(), base.fields.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == base.fields.end())
      throw Error(fmt::format("configuration '{}' has no field '{}' to set", to_string(base), key));
    it->second = field.second;
  }
  return base;
}

std::string overlay(std::string_view base, std::string_view overrides, std::string_view what) {
  std::string items(overrides);
  std::replace(items.begin(), items.end(), ';', ',');
  Fields out = parse_fields(base, what);
  for (const auto& field : parse_fields(items, what).fields) {
    const auto it =
        std::find_if(out.fields.begin(), out.fields.end(), [&](const auto& kv) { return kv.first == field.first; });
    if (it == out.fields.end()) out.fields.push_back(field);
    else it->second = field.second;
  }
  return to_string(out);
}

Fields project(const Fields& f, const std::vector<std::string>& keys) {
  Fields out;
  for (const std::string& key : keys) {
    const std::string* v = find(f, key);
    if (!v) throw Error(fmt::format("configuration '{}' has no field '{}'", to_string(f), key));
    out.fields.emplace_back(key, *v);
  }
  return out;
}

FieldReader::FieldReader(std::string_view family, std::string_view text)
    : family_(family), text_(text), fields_(parse_fields(text, fmt::format("{} config", family))) {}

const std::string* FieldReader::value(std::string_view key, bool required) {
  if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.emplace_back(key);
  const std::string* v = find(fields_, key);
  if (!v && required) throw Error(fmt::format("{} config '{}': {} is required", family_, text_, key));
  return v;
}

void FieldReader::refuse(std::string_view key, std::string_view value, std::string_view why) const {
  throw Error(fmt::format("{} config '{}': {}={} {}", family_, text_, key, value, why));
}

void FieldReader::refuse_choice(std::string_view key, std::string_view value,
                                const std::vector<std::string_view>& names) const {
  refuse(key, value, fmt::format("is not one of {}", fmt::join(names, ", ")));
}

int FieldReader::integer(std::string_view key) {
  return int(integer_in(key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

int FieldReader::integer(std::string_view key, int fallback) {
  if (!value(key, false)) return fallback;
  return integer(key);
}

long long FieldReader::integer_in(std::string_view key, long long lo, long long hi) {
  const std::string& v = *value(key, true);
  long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const bool whole = ec == std::errc() && end == v.data() + v.size();
  if (!whole && ec != std::errc::result_out_of_range) refuse(key, v, "is not an integer");
  if (!whole || n < lo || n > hi) {
    if (lo == std::numeric_limits<int>::min() && hi == std::numeric_limits<int>::max())
      refuse(key, v, "is not a 32-bit integer");
    refuse(key, v, fmt::format("is not an integer in {}..{}", lo, hi));
  }
  return n;
}

long long FieldReader::integer_in(std::string_view key, long long lo, long long hi, long long fallback) {
  if (!value(key, false)) return fallback;
  return integer_in(key, lo, hi);
}

namespace {
constexpr Named<bool> kFlags[] = {{"0", false}, {"1", true}};
}

bool FieldReader::flag(std::string_view key) { return choice(key, kFlags); }
bool FieldReader::flag(std::string_view key, bool fallback) { return choice(key, kFlags, fallback); }

void FieldReader::finish() const {
  for (const auto& [key, v] : fields_.fields)
    if (std::find(asked_.begin(), asked_.end(), key) == asked_.end())
      throw Error(fmt::format("{} config '{}': unknown field '{}' (known: {})", family_, text_, key,
                              fmt::join(asked_, ", ")));
}

}  // namespace tilewise::families
