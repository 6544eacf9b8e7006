#include "select/json_file.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/error.hpp"

namespace tilewise::select {

using nlohmann::json;

namespace {

// nlohmann reports a byte offset; a person editing the file wants a line and a column.
std::string line_column(const std::string& text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') line += 1, column = 1;
    else column += 1;
  }
  return fmt::format("{}:{}", line, column);
}

std::string escape(std::string_view key) {  // RFC 6901: '~' -> "~0", '/' -> "~1"
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string_view type_name(const json& j) { return j.type_name(); }

}  // namespace

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // The byte is where parsing stopped: the end of a truncated file, or the first bad character.
    const size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    throw Error(fmt::format("{}:{}: not valid JSON ({})", path, line_column(text, byte), e.what()));
  }
}

void write_json_file_atomically(const json& j, const std::string& path) {
  write_text_file_atomically(j.dump(1) + '\n', path);
}

void write_text_file_atomically(const std::string& text, const std::string& path) {
  // Unique per process and call, so two writers never share a temporary file.
  static std::atomic<unsigned> counter{0};
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (out) {
      out << text;
      written = bool(out.flush());
    }
  }
  std::error_code ec;
  if (written) std::filesystem::rename(tmp, path, ec);
  if (!written || ec) {
    std::filesystem::remove(tmp, ec);  // what was at `path` stays as it was
    throw Error(fmt::format("{}: cannot write", path));
  }
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

void At::fail(std::string_view what) const {
  throw Error(fmt::format("{}: {}: {}", origin, pointer.empty() ? "/" : pointer, what));
}

}  // namespace tilewise::select
