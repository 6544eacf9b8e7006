#include "core/json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/gzip.hpp"

namespace tilewise {

namespace {

// nlohmann reports a byte offset; a person editing the file wants a line and a column.
std::string line_column(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') line += 1, column = 1;
    else column += 1;
  }
  return fmt::format("{}:{}", line, column);
}

// A document's numbers as its readers can take them. nlohmann keeps a number that is not a 64-bit integer as a double,
// and reading a double into an integer field is undefined where the value is out of the field's range: so a whole
// number held as a double (1e10, or an integer literal past 64 bits) becomes the integer it is, or is refused past
// 64 bits; a number with a fraction must be under 2^31, which every integer field holds (no figure tilewise writes
// comes near it).
// Iterative: a document may nest deeper than a stack of calls can go (a megabyte of '['). A node's place is kept as
// its parent and its key or index, and spelled out only for the error.
void require_readable_numbers(nlohmann::json& document, const std::string& origin) {
  struct Node {
    nlohmann::json* value;
    size_t parent;      // index in `nodes`; the root's is itself
    std::string label;  // ".key" or "[i]"
  };
  std::vector<Node> nodes{{&document, 0, ""}};
  std::vector<size_t> todo{0};
  const auto place = [&](size_t n) {
    std::vector<const std::string*> labels;
    for (; n != 0; n = nodes[n].parent) labels.push_back(&nodes[n].label);
    std::string out;
    for (auto it = labels.rbegin(); it != labels.rend(); ++it) out += **it;
    return out.empty() ? std::string("the document") : out.substr(out[0] == '.' ? 1 : 0);
  };
  while (!todo.empty()) {
    const size_t n = todo.back();
    todo.pop_back();
    nlohmann::json& j = *nodes[n].value;
    if (j.is_object() || j.is_array()) {
      size_t i = 0;
      for (auto it = j.begin(); it != j.end(); ++it, ++i) {
        todo.push_back(nodes.size());
        nodes.push_back({&*it, n, j.is_object() ? "." + it.key() : fmt::format("[{}]", i)});
      }
      continue;
    }
    if (!j.is_number_float()) continue;
    const double v = j.get<double>();
    if (v == std::floor(v)) {
      if (v >= -0x1p63 && v < 0x1p63) j = int64_t(v);
      else if (v >= 0 && v < 0x1p64) j = uint64_t(v);
      else throw Error(fmt::format("{}: the number {} at {} is out of range: no field of a tilewise document holds a "
                                   "number under -2^63 or from 2^64 up", origin, v, place(n)));
    } else if (std::fabs(v) >= 0x1p31) {
      throw Error(fmt::format("{}: the number {} at {} has a fraction and is past 2^31: no field of a tilewise "
                              "document holds one", origin, v, place(n)));
    }
  }
}

// nlohmann keeps the last of two equal keys in one object, so `"us": 2.8, "us": 0.001` would read as 0.001 and check
// valid: a key given twice is refused, named with the keys of the objects around it. An object's key set lives
// only while the parser is inside it.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(const std::string& origin) : origin_(origin) {}
  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      open_.push_back({event == Event::object_start, {}, ""});
    } else if (event == Event::object_end || event == Event::array_end) {
      if (!open_.empty()) open_.pop_back();
    } else if (event == Event::key && !open_.empty()) {
      Open& object = open_.back();
      object.last = parsed.get<std::string>();
      if (!object.keys.insert(object.last).second)
        throw Error(fmt::format("{}: the key \"{}\" appears twice in the object at {}: which one is meant is not "
                                "known", origin_, object.last, place()));
    }
    return true;
  }

 private:
  struct Open {
    bool object;
    std::set<std::string> keys;
    std::string last;  // the key whose value is being read
  };
  std::string place() const {  // "results[].arms[]" for the object holding the key
    std::string out;
    for (size_t i = 0; i + 1 < open_.size(); ++i)
      out += open_[i].object ? (out.empty() ? "" : ".") + open_[i].last : "[]";
    return out.empty() ? "the top level" : out;
  }
  const std::string& origin_;
  std::vector<Open> open_;
};

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& origin) {
  try {
    nlohmann::json j = nlohmann::json::parse(text, DuplicateKeys(origin));
    require_readable_numbers(j, origin);
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    // The byte is where parsing stopped: the end of a truncated file, or the first bad character.
    const size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    throw Error(fmt::format("{}:{}: not valid JSON ({})", origin, line_column(text, byte), e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number beyond double range is out_of_range, not parse_error
    throw Error(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
}

nlohmann::json read_json(const std::string& path) {
  std::string text = files::read(path);
  if (path.ends_with(".gz")) text = gunzip(text, path, files::kMaxTextBytes);
  return parse_json(text, path);
}

std::string document_stem(const std::string& path) {
  std::filesystem::path name = std::filesystem::path(path).filename();
  if (name.extension() == ".gz") name = name.stem();
  return name.stem().string();
}

}  // namespace tilewise
