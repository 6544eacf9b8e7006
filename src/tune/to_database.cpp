#include "tune/to_database.hpp"

#include "families/registry.hpp"

namespace tilewise::tune {

select::Database to_database(const Campaign& c, const std::string& source) {
  select::Database db;
  // The database keeps each family's canonical text; the tuner's form also writes out the fields that text leaves
  // out at their defaults.
  for (const CaseResult& r : c.cases)
    if (r.status == Status::finished && r.best_us > 0)
      select::add(db, c.identity, r.c.problem, r.c.family, families::family(r.c.family).canonical(r.best), r.best_us,
                  source);
  return db;
}

}  // namespace tilewise::tune
