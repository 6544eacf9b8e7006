#include "tune/descent.hpp"

#include <fmt/format.h>

#include <chrono>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

receipt::ArmResult as_arm(const std::vector<double>& us) {
  receipt::ArmResult a;
  if (us.empty()) return a;
  a.us_median = receipt::median(us);
  a.us_min = *std::min_element(us.begin(), us.end());
  a.us_max = *std::max_element(us.begin(), us.end());
  return a;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool strictly_faster(const std::vector<double>& a, const std::vector<double>& b) {
  return receipt::compare(as_arm(a), as_arm(b)).claim == "faster";
}

CaseResult start_case(const Case& c, const Tunable& t, std::string mode) {
  check_space(t.space, t.warm_start);
  if (t.space.infeasible)
    if (const auto why = t.space.infeasible(t.warm_start))
      throw Error(fmt::format("{}: the warm start {} is infeasible: {}", c.id, to_string(t.warm_start), *why));
  CaseResult r;
  r.c = c;
  r.mode = std::move(mode);
  r.warm_start = r.best = to_string(t.warm_start);
  r.space_digest = digest(t.space);
  return r;
}

void descend(CaseResult& state, const Tunable& t, Measure& measure, const AfterRound& after_round) {
  for (size_t g = state.rounds.size(); g < t.space.groups.size(); ++g) {
    const auto t0 = std::chrono::steady_clock::now();
    const Group& group = t.space.groups[g];
    const Config incumbent = parse(state.best);
    const Candidates cands = candidates(group, incumbent, t.space.infeasible, t.space.fit);
    const std::vector<Timing> timings = measure.measure(state.c, cands.configs);
    if (timings.size() != cands.configs.size())
      throw Error(fmt::format("{}: the measurement returned {} timings for {} candidates", state.c.id, timings.size(),
                              cands.configs.size()));

    Round round;
    round.group = group.name;
    round.enumerated = cands.enumerated;
    round.infeasible = cands.infeasible;
    round.refitted = cands.refitted;
    round.legal = int(cands.configs.size());
    round.incumbent = state.best;
    round.incumbent_us = timings[0].us;
    for (const Timing& tm : timings) {
      round.compiled += tm.compiled;
      round.timed += !tm.us.empty();
      round.dropped += tm.dropped;
    }
    const double previous = state.rounds.empty() ? 0 : state.rounds.back().latency_us;
    if (round.incumbent_us.empty()) {
      // Without the incumbent's range nothing can be judged a strict win: hold.
      round.note = fmt::format("the incumbent was not timed: {}", timings[0].error);
      if (state.rounds.empty()) throw Error(fmt::format("{}: the warm start could not be timed: {}", state.c.id, timings[0].error));
      round.latency_us = previous;
    } else {
      const double incumbent_median = receipt::median(round.incumbent_us);
      if (state.rounds.empty()) state.start_us = incumbent_median;
      const double entering = state.rounds.empty() ? state.start_us : previous;
      // Among the candidates that win strictly against the incumbent timed beside them, the fastest relative to it;
      // an adoption on a tie or an overlap would let noise walk the latency up.
      const auto ratio = [&](size_t i) {
        return receipt::median(timings[i].us) / receipt::median(reference_of(timings, i));
      };
      size_t best = 0;
      for (size_t i = 1; i < timings.size(); ++i)
        if (!timings[i].dropped && !reference_of(timings, i).empty() &&
            strictly_faster(timings[i].us, reference_of(timings, i)) && (best == 0 || ratio(i) < ratio(best)))
          best = i;
      round.latency_us = entering;
      state.best_us = incumbent_median;
      if (best != 0) {
        round.winner = to_string(cands.configs[best]);
        round.winner_us = timings[best].us;
        round.winner_reference_us = timings[best].incumbent_us;
        round.adopted = true;
        round.latency_us = entering * ratio(best);
        state.best = round.winner;
        state.best_us = receipt::median(round.winner_us);
      }
    }
    round.wall_s = seconds_since(t0);
    state.rounds.push_back(std::move(round));
    if (after_round) after_round(state);
  }
  state.status = Status::finished;
}

}  // namespace tilewise::tune
