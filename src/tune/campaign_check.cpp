#include "tune/campaign_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-12; }

class CaseChecker {
 public:
  CaseChecker(const CaseResult& r, std::vector<std::string>& found) : r_(r), found_(found) {}

  void run(const std::string& campaign_mode) {
    if (r_.mode != campaign_mode) add("", fmt::format("mode {} in a {} campaign", r_.mode, campaign_mode));
    try {
      validate(r_.c.problem);
    } catch (const Error& e) {
      add("", fmt::format("invalid problem: {}", e.what()));
    }
    if (!time_or_zero(r_.start_us) || !time_or_zero(r_.best_us))
      add("", fmt::format("start_us {} and best_us {} must be times (positive, or 0 where not measured)", r_.start_us,
                          r_.best_us));
    bool sane = true;
    for (size_t i = 0; i < r_.rounds.size(); ++i) sane &= round_fields(r_.rounds[i], i);
    if (!sane) return;  // the figures below would be recomputed from samples that are not times
    if (r_.rounds.empty()) {
      if (r_.best != r_.warm_start || r_.start_us != 0 || r_.best_us != 0)
        add("", "records a best configuration or times before any round");
      return;
    }
    if (r_.mode == "grid") grid();
    else descent();
  }

 private:
  static bool time_or_zero(double v) { return std::isfinite(v) && v >= 0; }

  void add(const std::string& round, const std::string& what) {
    found_.push_back(fmt::format("case '{}'{}: {}", r_.c.id, round.empty() ? "" : " " + round, what));
  }

  static std::string name(const Round& round, size_t i) { return fmt::format("round {} ({})", i, round.group); }

  bool round_fields(const Round& round, size_t i) {
    bool ok = true;
    for (const auto* samples : {&round.incumbent_us, &round.winner_us, &round.winner_reference_us})
      for (double us : *samples)
        if (!std::isfinite(us) || us <= 0) {
          add(name(round, i), fmt::format("sample {} is not a time", us));
          ok = false;
        }
    if (!std::isfinite(round.latency_us) || round.latency_us <= 0) {
      add(name(round, i), fmt::format("latency_us {} is not a time", round.latency_us));
      ok = false;
    }
    if (!std::isfinite(round.wall_s) || round.wall_s < 0) add(name(round, i), fmt::format("wall_s {} is negative", round.wall_s));
    for (int count : {round.enumerated, round.legal, round.infeasible, round.refitted, round.compiled, round.timed,
                      round.dropped})
      if (count < 0) add(name(round, i), fmt::format("a count of {} candidates", count));
    if (round.dropped > round.timed || round.timed > round.legal)
      add(name(round, i), fmt::format("{} dropped, {} timed and {} legal do not nest", round.dropped, round.timed,
                                      round.legal));
    return ok;
  }

  // The samples the winner of `round` was judged against.
  static const std::vector<double>& reference(const Round& round) {
    return round.winner_reference_us.empty() ? round.incumbent_us : round.winner_reference_us;
  }

  void expect(const std::string& where, const char* field, double recorded, double recomputed) {
    if (!same(recorded, recomputed))
      add(where, fmt::format("{} {:.6g} does not match its samples ({:.6g})", field, recorded, recomputed));
  }

  // tune/descent.cpp's play_round and descend, replayed on the recorded samples.
  void descent() {
    if (r_.rounds[0].incumbent_us.empty()) {
      add(name(r_.rounds[0], 0), "the warm start has no samples in the first round");
      return;
    }
    expect("", "start_us", r_.start_us, receipt::median(r_.rounds[0].incumbent_us));
    std::string held = r_.warm_start;
    double entering = r_.start_us, best_us = 0;
    for (size_t i = 0; i < r_.rounds.size(); ++i) {
      const Round& round = r_.rounds[i];
      const std::string where = name(round, i);
      const bool confirm = round.group == kConfirmRound;
      if (confirm && (i + 1 != r_.rounds.size() || held == r_.warm_start))
        add(where, "a confirm round comes last, and only after the descent moved");
      if (round.incumbent != held) add(where, fmt::format("incumbent {} is not the configuration held ({})", round.incumbent, held));
      double latency = entering;
      if (!round.incumbent_us.empty()) best_us = receipt::median(round.incumbent_us);
      if (round.adopted) {
        if (round.winner.empty() || round.winner_us.empty() || round.incumbent_us.empty()) {
          add(where, "adopts a winner without the samples that judged it");
          return;
        }
        if (!receipt::strictly_faster(round.winner_us, reference(round)))
          add(where, fmt::format("adopts {}, whose samples do not win strictly against the incumbent's", round.winner));
        if (confirm && round.winner != r_.warm_start)
          add(where, fmt::format("the confirm round adopts {}, not the warm start", round.winner));
        latency = confirm ? r_.start_us
                          : entering * receipt::median(round.winner_us) / receipt::median(reference(round));
        held = round.winner;
        best_us = receipt::median(round.winner_us);
      } else if (!round.winner.empty() || !round.winner_us.empty()) {
        add(where, fmt::format("names the winner {} but does not adopt it", round.winner));
      }
      expect(where, "latency_us", round.latency_us, latency);
      entering = latency;
    }
    if (r_.best != held) add("", fmt::format("best {} is not the configuration its rounds hold ({})", r_.best, held));
    expect("", "best_us", r_.best_us, best_us);
  }

  // tune/grid.cpp's grid, replayed: one round, every point timed beside the warm start, the fastest relative to it.
  void grid() {
    const Round& round = r_.rounds[0];
    const std::string where = name(round, 0);
    if (r_.rounds.size() != 1 || round.group != "grid") add("", "a grid case holds one round, 'grid'");
    if (r_.start_us != 0) add("", fmt::format("start_us {} in grid mode, which measures no start", r_.start_us));
    if (round.incumbent != r_.warm_start) add(where, fmt::format("reference {} is not the warm start", round.incumbent));
    if (!round.adopted || round.winner_us.empty() || round.incumbent_us.empty() || reference(round).empty()) {
      add(where, "chooses no point with the samples that judged it");
      return;
    }
    const double latency =
        receipt::median(round.incumbent_us) * receipt::median(round.winner_us) / receipt::median(reference(round));
    expect(where, "latency_us", round.latency_us, latency);
    if (r_.best != round.winner) add("", fmt::format("best {} is not the grid's choice ({})", r_.best, round.winner));
    expect("", "best_us", r_.best_us, latency);
  }

  const CaseResult& r_;
  std::vector<std::string>& found_;
};

}  // namespace

std::vector<std::string> check_campaign(const Campaign& c) {
  std::vector<std::string> found;
  try {
    require_campaign_mode(c.mode, "mode");
  } catch (const Error& e) {
    found.push_back(e.what());
  }
  std::set<std::string> ids;
  for (const CaseResult& r : c.cases) {
    if (!ids.insert(r.c.id).second) found.push_back(fmt::format("case '{}' is recorded twice", r.c.id));
    if (r.status != Status::failed) CaseChecker(r, found).run(c.mode);
  }
  return found;
}

void require_sound(const Campaign& c, const std::string& path) {
  const std::vector<std::string> found = check_campaign(c);
  if (found.empty()) return;
  std::string list;
  for (size_t i = 0; i < found.size() && i < 5; ++i) list += "\n  " + found[i];
  if (found.size() > 5) list += fmt::format("\n  and {} more", found.size() - 5);
  throw Error(fmt::format("{}: the campaign does not hold its figures (tilewise check lists all):{}", path, list));
}

}  // namespace tilewise::tune
