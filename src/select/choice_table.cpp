#include "select/choice_table.hpp"

#include <fmt/format.h>

#include "select/choice.hpp"

namespace tilewise::select {

std::string choice_table(const std::vector<Problem>& problems, const Database* db, const Rules& rules) {
  std::string out = fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<8} {:<9} {:>9}  {}\n", "problem", "dtype", "lay",
                                "MxNxK", "family", "from", "us", "configuration");
  for (const Problem& p : problems) {
    const Choice c = choose(db, p, rules);
    const bool measured = c.source == "database";
    out += fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<8} {:<9} {:>9}  {}\n", p.name, to_string(p.dtype),
                       to_string(p.layout), fmt::format("{}x{}x{}", p.M, p.N, p.K), c.family, c.source,
                       measured ? fmt::format("{:.2f}", c.us) : "-",
                       c.config.empty() ? "(cuBLASLt's own heuristic, asked on the GPU)" : c.config);
  }
  return out;
}

}  // namespace tilewise::select
