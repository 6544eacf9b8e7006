#include "core/suite.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/file.hpp"

namespace tilewise {

namespace {

bool valid_name(const std::string& s) {
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return !s.empty();
}

// A whole number of at least `least` (1 for sizes, 0 for a padding).
int64_t parse_size(const std::string& text, const char* what, const std::string& where, int64_t least = 1) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) throw Error(fmt::format("{}: {} '{}' is out of range", where, what, text));
  if (ec != std::errc() || end != text.data() + text.size())
    throw Error(fmt::format("{}: {} '{}' is not an integer", where, what, text));
  if (v < least) throw Error(fmt::format("{}: {} = {} must be {}", where, what, v, least == 1 ? "positive" : "0 or more"));
  return v;
}

}  // namespace

Suite parse_suite(std::istream& in, const std::string& path) {
  Suite suite{path, {}};
  std::set<std::string> names;
  std::string raw;
  for (int line_no = 1; std::getline(in, raw); ++line_no) {
    const std::string line = raw.substr(0, raw.find('#'));
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (words.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    // A byte that is not printable ASCII would cut or garble the messages that quote the line (a NUL ends them).
    for (size_t i = 0; i < line.size(); ++i)
      if (const auto c = static_cast<unsigned char>(line[i]); (c < 0x20 && c != '\t' && c != '\r') || c >= 0x7f)
        throw Error(fmt::format("{}: byte 0x{:02x} at column {} is not printable ASCII; outside a comment a suite "
                                "holds only names, numbers and fields", where, c, i + 1));
    if (words.size() < 4)
      throw Error(fmt::format("{}: expected 'name M N K', got {} field{}", where, words.size(), words.size() == 1 ? "" : "s"));
    if (!valid_name(words[0]))
      throw Error(fmt::format("{}: name '{}' may hold only letters, digits, '_', '-' and '.'", where, words[0]));
    if (!names.insert(words[0]).second) throw Error(fmt::format("{}: duplicate problem name '{}'", where, words[0]));
    SuiteEntry e{words[0], parse_size(words[1], "M", where), parse_size(words[2], "N", where),
                 parse_size(words[3], "K", where), line_no};
    std::set<std::string> keys;
    for (size_t i = 4; i < words.size(); ++i) {
      const size_t eq = words[i].find('=');
      const std::string key = words[i].substr(0, eq), value = eq == std::string::npos ? "" : words[i].substr(eq + 1);
      if (eq == std::string::npos || value.empty())
        throw Error(fmt::format("{}: '{}' is not dtype=, layout= or pad= with a value", where, words[i]));
      if (!keys.insert(key).second) throw Error(fmt::format("{}: {} is given twice", where, key));
      try {
        if (key == "dtype") e.dtype = parse_dtype(value);
        else if (key == "layout") e.layout = parse_layout(value);
        else if (key == "pad") e.pad = parse_size(value, "pad", where, 0);
        else throw Error(fmt::format("unknown field '{}' (a line may fix dtype=, layout= and pad=)", key));
      } catch (const Error& err) {
        const std::string what = err.what();
        throw Error(what.starts_with(where) ? what : fmt::format("{}: {}", where, what));
      }
    }
    // A leading dimension past int32 is refused when the problem is validated; a pad that large would first
    // overflow the leading dimension it is added to.
    if (e.pad > std::numeric_limits<int32_t>::max())
      throw Error(fmt::format("{}: pad = {} exceeds {}", where, e.pad, std::numeric_limits<int32_t>::max()));
    suite.entries.push_back(std::move(e));
  }
  if (in.bad()) throw Error(fmt::format("{}: read error", path));
  if (suite.entries.empty()) throw Error(fmt::format("{}: the suite holds no problems", path));
  return suite;
}

std::vector<SuiteCase> expand_suites(const std::vector<std::string>& suites, const std::vector<std::string>& only,
                                     const std::vector<DType>& dtypes, const std::vector<Layout>& layouts) {
  std::vector<SuiteCase> cases;
  const std::set<std::string> wanted(only.begin(), only.end());
  std::map<std::string, std::string> found;  // a problem's name: the suite it came from
  for (const std::string& path : suites)
    for (const SuiteEntry& e : load_suite(path).entries) {
      if (!wanted.empty() && !wanted.count(e.name)) continue;
      if (const auto [at, fresh] = found.emplace(e.name, path); !fresh)
        throw Error(fmt::format("problem '{}' is in both {} and {}: a run names each problem once (receipts and --only "
                                "go by name); give one of the suites, or --only",
                                e.name, at->second, path));
      for (DType d : e.dtype ? std::vector<DType>{*e.dtype} : dtypes)
        for (Layout l : e.layout ? std::vector<Layout>{*e.layout} : layouts) cases.push_back({e, d, l, suite_name(path)});
    }
  for (const std::string& name : wanted)
    if (!found.count(name)) throw Error(fmt::format("--only names '{}', which no given suite holds", name));
  return cases;
}

std::string suite_name(const std::string& path) { return std::filesystem::path(path).stem().string(); }

Orientation orientation_of(std::string_view suite, std::string_view problem_name) {
  return suite.ends_with("-linear") || problem_name.ends_with("_lin") ? Orientation::linear : Orientation::column_major;
}

std::string_view to_string(Orientation o) { return o == Orientation::linear ? "nn.Linear" : "column-major"; }

Suite load_suite(const std::string& path) {
  std::istringstream in(files::read(path));
  return parse_suite(in, path);
}

}  // namespace tilewise
