#include "select/json_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/json.hpp"

namespace tilewise::select {

using nlohmann::json;

namespace {

std::string escape(std::string_view key) {  // RFC 6901: '~' -> "~0", '/' -> "~1"
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string_view type_name(const json& j) { return j.type_name(); }

}  // namespace

json read_json_file(const std::string& path) { return read_json(path); }

void write_json_file_atomically(const json& j, const std::string& path) {
  write_text_file_atomically(j.dump(1) + '\n', path);
}

void write_text_file_atomically(const std::string& text, const std::string& path) {
  files::write(path, text, files::Existing::replace);
}

At At::operator[](std::string_view key) const {
  const json& o = object();
  const auto it = o.find(key);
  if (it == o.end()) fail(fmt::format("missing field '{}'", key));
  return At{*it, origin, pointer + "/" + escape(key)};
}

At At::operator[](size_t index) const {
  const json& a = array();
  if (index >= a.size()) fail(fmt::format("no element {}", index));
  return At{a[index], origin, fmt::format("{}/{}", pointer, index)};
}

bool At::has(std::string_view key) const { return object().contains(key); }

const json& At::object() const {
  if (!value.is_object()) fail(fmt::format("expected an object, got {}", type_name(value)));
  return value;
}

const json& At::array() const {
  if (!value.is_array()) fail(fmt::format("expected an array, got {}", type_name(value)));
  return value;
}

std::string At::string() const {
  if (!value.is_string()) fail(fmt::format("expected a string, got {}", type_name(value)));
  return value.get<std::string>();
}

double At::number() const {
  if (!value.is_number()) fail(fmt::format("expected a number, got {}", type_name(value)));
  const double v = value.get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  return v;
}

int64_t At::integer() const {
  if (!value.is_number_integer()) fail(fmt::format("expected an integer, got {}", type_name(value)));
  return value.get<int64_t>();
}

int At::count() const {
  const int64_t n = integer();
  if (n < 0 || n > std::numeric_limits<int>::max())
    fail(fmt::format("{} is not a count (0..{})", n, std::numeric_limits<int>::max()));
  return int(n);
}

int At::sm_count() const {
  const int64_t n = integer();
  if (n < 1 || n > 1024) fail(fmt::format("{} is not an SM count (1..1024)", n));
  return int(n);
}

void At::fail(std::string_view what) const {
  throw Error(fmt::format("{}: {}: {}", origin, pointer.empty() ? "/" : pointer, what));
}

}  // namespace tilewise::select
