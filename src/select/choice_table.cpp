#include "select/choice_table.hpp"

#include <fmt/format.h>

#include "select/choice.hpp"

namespace tilewise::select {

namespace {

// The database a measured choice came from: the first with the problem's signature (or, for a bucket's choice, with
// an entry of its bucket), as choose() searches them.
const NamedDatabase* source_of(const std::vector<NamedDatabase>& dbs, const Choice& c, const Problem& p,
                               const Rules& rules) {
  for (const NamedDatabase& d : dbs)
    if (d.db && (c.source == "database" ? from_database(*d.db, p).has_value()
                                        : !bucket_choices(*d.db, p, rules.sm_count).empty()))
      return &d;
  return nullptr;
}

}  // namespace

std::string choice_table(const std::vector<Problem>& problems, const std::vector<NamedDatabase>& dbs,
                         const Rules& rules, bool reasons) {
  std::vector<const Database*> searched;
  for (const NamedDatabase& d : dbs) searched.push_back(d.db);
  std::string out = fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<17} {:<8} {:<9} {:>9}  {}\n", "problem", "dtype",
                                "lay", "MxNxK", "as nn.Linear", "family", "from", "us", "configuration");
  for (const Problem& p : problems) {
    const Choice c = choose(searched, p, rules);
    const bool measured = c.source == "database" || c.source == "bucket";
    const std::string linear = p.layout == Layout::TN ? fmt::format("T={} F={}", p.N, p.M) : "-";
    out += fmt::format("{:<16} {:<5} {:<3} {:>18}  {:<17} {:<8} {:<9} {:>9}  {}\n", p.name, to_string(p.dtype),
                       to_string(p.layout), fmt::format("{}x{}x{}", p.M, p.N, p.K), linear, c.family, c.source,
                       measured ? fmt::format("{:.2f}", c.us) : "-",
                       c.config.empty() ? "(cuBLASLt's own heuristic, asked on the GPU)" : c.config);
    if (!reasons) continue;
    if (measured) {
      if (const NamedDatabase* d = source_of(dbs, c, p, rules)) out += fmt::format("    from: {}\n", d->name);
    } else {
      for (const std::string& line : floor_reasons(p, rules)) out += fmt::format("    floor: {}\n", line);
    }
  }
  return out;
}

}  // namespace tilewise::select
