#include "core/json.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file.hpp"

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

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The byte is where parsing stopped: the end of a truncated file, or the first bad character.
    const size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    throw Error(fmt::format("{}:{}: not valid JSON ({})", origin, line_column(text, byte), e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number beyond double range is out_of_range, not parse_error
    throw Error(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
}

nlohmann::json read_json(const std::string& path) { return parse_json(files::read(path), path); }

}  // namespace tilewise
