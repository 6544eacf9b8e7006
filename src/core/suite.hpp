#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace tilewise {

// A problem matrix: one `name M N K` a line, `#` starts a comment. dtype and layout come from the command line,
// unless the line fixes them: `name M N K dtype=fp16 layout=NN pad=8` (any of the three, in any order; pad adds
// elements to every leading dimension, on top of the command line's --pad). Generated sweeps use them.
struct SuiteEntry {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
  int line = 0;
  std::optional<DType> dtype;
  std::optional<Layout> layout;
  int64_t pad = 0;
};

struct Suite {
  std::string path;
  std::vector<SuiteEntry> entries;
};

// Throws Error with "path:line: what is wrong" for malformed lines, non-positive sizes, duplicate names or an
// empty suite.
Suite parse_suite(std::istream& in, const std::string& path);
Suite load_suite(const std::string& path);

// A suite's name: its file name without directories or extension ("suites/llm24.txt" is "llm24").
std::string suite_name(const std::string& path);

// How a model reaches a suite's GEMMs (docs/design.md): nn.Linear's y[T, F] = x W^T (TN with M = F, N = T, A the
// weights, C column-major [F x T] = y row-major) for a suite whose name ends in "-linear" or a problem whose name ends
// in "_lin" (the sweep's), else the seeds' column-major form (tokens as M, B the weights).
enum class Orientation { column_major, linear };
Orientation orientation_of(std::string_view suite, std::string_view problem_name);
std::string_view to_string(Orientation o);  // "column-major" or "nn.Linear"

// One suite line in one dtype and layout: the unit every command that takes --suite/--dtypes/--layouts works on.
struct SuiteCase {
  SuiteEntry entry;
  DType dtype;
  Layout layout;
  std::string suite;  // suite_name() of the file the line is in
};

// Every line of the suites (those named in `only`, when it is not empty) in every dtype and layout, in order; a line
// that fixes its dtype or layout is taken in that one alone.
// Throws Error naming an `only` name that no suite holds.
std::vector<SuiteCase> expand_suites(const std::vector<std::string>& suites, const std::vector<std::string>& only,
                                     const std::vector<DType>& dtypes, const std::vector<Layout>& layouts);

// The case's problem, `pad` elements (and the line's own) added to every leading dimension.
inline Problem make_problem(const SuiteCase& c, int64_t pad = 0) {
  return make_problem(c.entry.name, c.entry.M, c.entry.N, c.entry.K, c.dtype, c.layout, pad + c.entry.pad);
}

}  // namespace tilewise
