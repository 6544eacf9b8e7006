#pragma once
// The one reader of configuration text the families share. A configuration is "key=value,key=value,...": the
// tokenizer turns it into ordered fields (what the tuner works on, whatever the family), and a FieldReader takes a
// family's typed values out of them by name. Every error has one form, naming the family, the text, the field and
// the value:
//   sm90 config 'block_m=x,stages=4': block_m=x is not an integer
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace tilewise::families {

struct Fields {
  std::vector<std::pair<std::string, std::string>> fields;  // in the text's order
  bool operator==(const Fields&) const = default;
};

// "block_m=128,block_n=256" -> {{block_m, 128}, {block_n, 256}}; "" -> no fields. Throws Error, its message beginning
// "<what> '<text>': ", on an empty item, an item that is not key=value (or has no key, or holds a second '='), or a
// key given twice.
Fields parse_fields(std::string_view text, std::string_view what = "configuration");
std::string to_string(const Fields& f);  // the text again

const std::string* find(const Fields& f, std::string_view key);
std::vector<std::string> keys(const Fields& f);  // in order
// `base` with the values `change` gives; a key `change` names that `base` lacks is an Error.
Fields apply(Fields base, const Fields& change);
// An arm's overrides laid over a configuration's text: "key=value" items separated by ';' (',' separates arms), each
// replacing the base's value or, for a field the base leaves out of its text (one printed only when set), joining it.
// Throws Error as parse_fields, naming `what` (the arm), for an item that is not key=value or a key given twice.
std::string overlay(std::string_view base, std::string_view overrides, std::string_view what);
// The values `f` has for `keys`, in that order; a key `f` lacks is an Error.
Fields project(const Fields& f, const std::vector<std::string>& keys);

// A value a configuration names: one table serves both printing and reading it.
template <typename E>
using Named = std::pair<std::string_view, E>;
template <typename E, size_t N>
std::string_view name_of(const Named<E> (&names)[N], E value) {
  for (const auto& [name, e] : names)
    if (e == value) return name;
  return "?";
}

// A family's configuration read field by field. Each getter takes a field by name (a default for an optional one);
// finish() refuses a field no getter asked for, naming the ones asked for.
class FieldReader {
 public:
  FieldReader(std::string_view family, std::string_view text);  // throws Error as parse_fields

  int integer(std::string_view key);
  int integer(std::string_view key, int fallback);
  // An integer in lo..hi.
  long long integer_in(std::string_view key, long long lo, long long hi);
  long long integer_in(std::string_view key, long long lo, long long hi, long long fallback);
  bool flag(std::string_view key);  // 0 or 1
  bool flag(std::string_view key, bool fallback);
  // One of `names`' values by its name.
  template <typename E, size_t N>
  E choice(std::string_view key, const Named<E> (&names)[N]);
  template <typename E, size_t N>
  E choice(std::string_view key, const Named<E> (&names)[N], E fallback);
  // The value as `parse` reads it (a function of the text that throws Error, e.g. parse_dtype).
  template <typename Parse>
  auto parsed(std::string_view key, Parse&& parse) -> decltype(parse(std::string_view()));
  template <typename Parse, typename T>
  T parsed(std::string_view key, Parse&& parse, T fallback);
  void finish() const;

 private:
  // The value of `key` (nullptr where the text lacks it, an Error when required), marking it asked for.
  const std::string* value(std::string_view key, bool required);
  [[noreturn]] void refuse(std::string_view key, std::string_view value, std::string_view why) const;
  [[noreturn]] void refuse_choice(std::string_view key, std::string_view value,
                                  const std::vector<std::string_view>& names) const;

  std::string family_, text_;
  Fields fields_;
  std::vector<std::string> asked_;
};

template <typename E, size_t N>
E FieldReader::choice(std::string_view key, const Named<E> (&names)[N]) {
  const std::string* v = value(key, true);
  std::vector<std::string_view> known;
  for (const auto& [name, e] : names) {
    if (*v == name) return e;
    known.push_back(name);
  }
  refuse_choice(key, *v, known);
}

template <typename E, size_t N>
E FieldReader::choice(std::string_view key, const Named<E> (&names)[N], E fallback) {
  if (!value(key, false)) return fallback;
  return choice(key, names);
}

template <typename Parse>
auto FieldReader::parsed(std::string_view key, Parse&& parse) -> decltype(parse(std::string_view())) {
  const std::string* v = value(key, true);
  try {
    return parse(std::string_view(*v));
  } catch (const Error& e) {
    refuse(key, *v, fmt::format("is refused: {}", e.what()));
  }
}

template <typename Parse, typename T>
T FieldReader::parsed(std::string_view key, Parse&& parse, T fallback) {
  if (!value(key, false)) return fallback;
  return parsed(key, parse);
}

}  // namespace tilewise::families
