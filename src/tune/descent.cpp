#include "tune/descent.hpp"

#include <fmt/format.h>

#include <chrono>

#include "core/error.hpp"
#include "receipt/derive.hpp"

namespace tilewise::tune {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

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

namespace {

// One round: `cands` (the incumbent first) timed side by side, the fastest strict winner adopted.
void play_round(CaseResult& state, const std::string& name, const Candidates& cands, Measure& measure) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Timing> timings = measure.measure(state.c, cands.configs);
  if (timings.size() != cands.configs.size())
    throw Error(fmt::format("{}: the measurement returned {} timings for {} candidates", state.c.id, timings.size(),
                            cands.configs.size()));

  Round round;
  round.group = name;
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
}

}  // namespace

void descend(CaseResult& state, const Tunable& t, Measure& measure, const AfterRound& after_round) {
  const size_t groups = t.space.groups.size();
  for (size_t g = state.rounds.size(); g < groups; ++g) {
    const Group& group = t.space.groups[g];
    play_round(state, group.name, candidates(group, parse(state.best), t.space.infeasible, t.space.fit), measure);
    if (after_round) after_round(state);
  }
  // Each adoption was a strict win beside the incumbent of its round, but a kernel's time can move with what runs
  // around it (docs/notes/2026-12-03-family-rules.md, "The tuner"). So a descent that moved ends with its result
  // timed beside the warm start, and goes back to the warm start where that is strictly faster: a case never ends
  // slower than where it began, as measured side by side. Its latency is then the warm start's own, where the
  // trajectory began: the gains the rounds before recorded did not hold, and the trajectory says so rather than
  // chaining one more ratio onto them.
  if (state.rounds.size() == groups && state.best != state.warm_start) {
    Candidates both;
    both.configs = {parse(state.best), t.warm_start};
    both.enumerated = 2;
    play_round(state, kConfirmRound, both, measure);
    if (state.rounds.back().adopted) state.rounds.back().latency_us = state.start_us;
    if (after_round) after_round(state);
  }
  state.status = Status::finished;
}

}  // namespace tilewise::tune
