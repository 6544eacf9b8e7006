#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tilewise {

// A problem matrix: one `name M N K` a line, `#` starts a comment. dtype and layout come from the command line.
struct SuiteEntry {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
  int line = 0;
};

struct Suite {
  std::string path;
  std::vector<SuiteEntry> entries;
};

// Throws Error with "path:line: what is wrong" for malformed lines, non-positive sizes, duplicate names or an
// empty suite.
Suite parse_suite(std::istream& in, const std::string& path);
Suite load_suite(const std::string& path);

}  // namespace tilewise
