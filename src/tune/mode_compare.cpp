#include "tune/mode_compare.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

void require_mode(const std::vector<CaseResult>& cases, const std::string& mode) {
  for (const CaseResult& r : cases)
    if (r.mode != mode)
      throw Error(fmt::format("case '{}' was tuned in {} mode where a {} campaign was expected", r.c.id, r.mode, mode));
}

int timed(const CaseResult& r) {
  int n = 0;
  for (const Round& round : r.rounds) n += round.timed;
  return n;
}

// The warm start as the run timed it first (the descent's start; the grid's reference in its first chunk), and the
// latency the trajectory ends at, at those clocks.
double warm_start_us(const CaseResult& r) {
  if (r.start_us > 0) return r.start_us;
  return r.rounds.empty() || r.rounds[0].incumbent_us.empty() ? 0 : receipt::median(r.rounds[0].incumbent_us);
}

double final_us(const CaseResult& r) { return r.rounds.empty() ? 0 : r.rounds.back().latency_us; }

double wall_s(const CaseResult& r) {
  double s = 0;
  for (const Round& round : r.rounds) s += round.wall_s;
  return s;
}

}  // namespace

ModeComparison compare_modes(const std::vector<CaseResult>& descent, const std::vector<CaseResult>& grid) {
  require_mode(descent, "descent");
  require_mode(grid, "grid");
  ModeComparison out;
  double log_sum = 0;
  for (const CaseResult& d : descent) {
    if (d.status != Status::finished) continue;
    for (const CaseResult& g : grid) {
      if (g.c.id != d.c.id || g.status != Status::finished) continue;
      ModeRow row{d.c.id,   warm_start_us(d), final_us(d), warm_start_us(g), final_us(g), timed(d), timed(g),
                  wall_s(d), wall_s(g)};
      if (row.descent_start_us <= 0 || row.descent_us <= 0 || row.grid_start_us <= 0 || row.grid_us <= 0)
        throw Error(fmt::format("case '{}' has no warm start or final latency in one of the campaigns (a grid "
                                "campaign from before the grid timed the warm start beside its points?)",
                                d.c.id));
      log_sum += std::log(row.ratio());
      out.descent_wall_s += row.descent_wall_s;
      out.grid_wall_s += row.grid_wall_s;
      out.rows.push_back(std::move(row));
    }
  }
  if (out.rows.empty())  // a geomean of nothing would read as a tie
    throw Error("the descent and grid campaigns have no finished case in common: nothing to set side by side");
  out.geomean_ratio = std::exp(log_sum / double(out.rows.size()));
  return out;
}

std::string format_mode_comparison(const ModeComparison& c) {
  std::string out = fmt::format("{:<32} {:>17} {:>7} {:>8}   {:>17} {:>7} {:>8}   {:>12}\n", "case",
                                "descent us", "timed", "wall s", "grid us", "timed", "wall s", "grid/descent");
  for (const ModeRow& r : c.rows)
    out += fmt::format("{:<32} {:>7.2f} -> {:>6.2f} {:>7} {:>8.1f}   {:>7.2f} -> {:>6.2f} {:>7} {:>8.1f}   {:>11.3f}x\n",
                       r.id, r.descent_start_us, r.descent_us, r.descent_timed, r.descent_wall_s, r.grid_start_us,
                       r.grid_us, r.grid_timed, r.grid_wall_s, r.ratio());
  out += fmt::format("{} cases in both: grid / descent final latency, each over its own run's warm start, geomean "
                     "{:.3f}x; wall time {:.0f} s descent, {:.0f} s grid\n",
                     c.rows.size(), c.geomean_ratio, c.descent_wall_s, c.grid_wall_s);
  return out;
}

}  // namespace tilewise::tune
