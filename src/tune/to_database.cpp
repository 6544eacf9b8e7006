#include "tune/to_database.hpp"

#include "tune/gemv_space.hpp"
#include "tune/sm90_space.hpp"

namespace tilewise::tune {

namespace {

// The database keeps each family's canonical text; the tuner's gemv and sm90 configurations also write out the
// fields that text leaves out at 0 (tune/gemv_space.hpp, tune/sm90_space.hpp).
std::string canonical(const std::string& family, const std::string& config) {
  if (family == "gemv") return gemv::to_string(to_gemv(parse(config)));
  if (family == "sm90") return sm90::to_string(to_sm90(parse(config)));
  return config;
}

}  // namespace

select::Database to_database(const Campaign& c, const std::string& source) {
  select::Database db;
  for (const CaseResult& r : c.cases)
    if (r.status == Status::finished && r.best_us > 0)
      select::add(db, c.identity, r.c.problem, r.c.family, canonical(r.c.family, r.best), r.best_us, source);
  return db;
}

}  // namespace tilewise::tune
