#pragma once
// Reading and writing the JSON artifacts of selection and tuning (databases, campaigns). A file that does not parse
// is reported as file:line:column; a value of the wrong type or a missing field as file and JSON pointer, so a
// corrupt artifact can be found and fixed by hand instead of silently ignored.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tilewise::select {

// Parses `path`; throws Error "path:line:column: ..." on malformed JSON, "path: cannot open" when unreadable.
nlohmann::json read_json_file(const std::string& path);
// Writes to a temporary file beside `path` and renames it into place, so a crash leaves the old file or the new one,
// never half of one.
void write_json_file_atomically(const nlohmann::json& j, const std::string& path);
void write_text_file_atomically(const std::string& text, const std::string& path);  // the same, for any text

// A cursor into a document being read: `origin` (a path) and the JSON pointer of `value`, carried along so every
// error names where it is.
struct At {
  const nlohmann::json& value;
  std::string origin;
  std::string pointer;  // "" is the document itself

  At operator[](std::string_view key) const;  // the member `key` of an object; throws naming it when missing
  At operator[](size_t index) const;           // an element of an array
  bool has(std::string_view key) const;

  const nlohmann::json& object() const;  // throws unless an object
  const nlohmann::json& array() const;   // throws unless an array
  std::string string() const;
  double number() const;
  int64_t integer() const;
  int count() const;     // a whole number from 0 that an int holds: a larger one is refused, never wrapped
  int sm_count() const;  // an integer a GPU's SM count can be (1..1024): the rules size their grids by it

  [[noreturn]] void fail(std::string_view what) const;  // throws Error "origin: pointer: what"
};

}  // namespace tilewise::select
