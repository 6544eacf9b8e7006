#include "tune/to_database.hpp"

namespace tilewise::tune {

select::Database to_database(const Campaign& c, const std::string& source) {
  select::Database db;
  for (const CaseResult& r : c.cases)
    if (r.status == Status::finished && r.best_us > 0)
      select::add(db, c.identity, r.c.problem, r.c.family, r.best, r.best_us, source);
  return db;
}

}  // namespace tilewise::tune
