#include "select/choice_table.hpp"

#include <fmt/format.h>

#include "select/choice.hpp"

namespace tilewise::select {

std::string choice_table(const std::vector<Problem>& problems, const std::vector<NamedDatabase>& dbs,
                         const Rules& rules, bool reasons) {
  std::vector<const Database*> searched;
  for (const NamedDatabase& d : dbs) searched.push_back(d.db);
  std::string out = fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<17} {:<8} {:<9} {:>9}  {}\n", "problem", "dtype",
                                "lay", "MxNxK", "as nn.Linear", "family", "from", "us", "configuration");
  for (const Problem& p : problems) {
    const SourcedChoice sourced = choose_sourced(searched, p, rules);
    const Choice& c = sourced.choice;
    const bool measured = sourced.database.has_value();
    const std::string linear = p.layout == Layout::TN ? fmt::format("T={} F={}", p.N, p.M) : "-";
    out += fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<17} {:<8} {:<9} {:>9}  {}\n", p.name, to_string(p.dtype),
                       to_string(p.layout), fmt::format("{}x{}x{}", p.M, p.N, p.K), linear, c.family, c.source,
                       measured ? fmt::format("{:.2f}", c.us) : "-",
                       c.config.empty() ? "(cuBLASLt's own heuristic, asked on the GPU)" : c.config);
    if (!reasons) continue;
    if (sourced.database) {
      out += fmt::format("    from: {}\n", dbs[*sourced.database].name);
    } else {
      for (const std::string& line : floor_reasons(p, rules)) out += fmt::format("    floor: {}\n", line);
    }
  }
  return out;
}

}  // namespace tilewise::select
