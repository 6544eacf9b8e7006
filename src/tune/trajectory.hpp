#pragma once
// What tuning one case records: the configuration held and the latency after every round, and per round what it
// cost (enumerated, legal, compiled, timed, wall time), as seed 003 reports its descent.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/measure.hpp"

namespace tilewise::tune {

// The round after the groups' rounds of a descent that moved: its result and the warm start side by side
// (tune/descent.hpp).
inline constexpr const char* kConfirmRound = "confirm";

struct Round {
  std::string group;  // the group opened, kConfirmRound, or "grid"
  int enumerated = 0, legal = 0, infeasible = 0, compiled = 0, timed = 0;
  int refitted = 0;  // legal only after the space's fit changed fields outside the group (counted in legal)
  int dropped = 0;   // timed, then timed no further once ruled out (counted in timed); absent in older campaigns
  double wall_s = 0;
  std::string incumbent;             // held entering the round
  std::vector<double> incumbent_us;  // its repeats in this round
  std::string winner;                // the fastest candidate whose range lies wholly below the incumbent's; "" if none
  std::vector<double> winner_us;
  // The incumbent's samples the winner was judged against, where they are not incumbent_us (it was timed in a later
  // chunk of the round); absent in older campaigns.
  std::vector<double> winner_reference_us;
  bool adopted = false;
  // Latency after the round. Rounds are measured minutes apart under drifting clocks, so absolute times from
  // different rounds do not compare; what a round measures is a ratio between candidates timed side by side. The
  // trajectory chains those ratios from the warm start: unchanged on a hold, times winner/incumbent (medians of the
  // samples timed side by side, < 1 on a strict win) on an adoption, so it never rises.
  double latency_us = 0;
  std::string note;  // why the round could not judge, when it could not
  bool operator==(const Round&) const = default;
};

enum class Status { running, finished, failed };

struct CaseResult {
  Case c;
  std::string mode;        // "descent" or "grid"
  std::string warm_start;  // canonical text
  std::string space_digest;
  std::vector<Round> rounds;  // the finished ones
  std::string best;           // held after the last finished round
  double start_us = 0;        // the warm start's median in the first round (0 in grid mode: not measured)
  double best_us = 0;         // the held configuration's median in the last round that timed it
  Status status = Status::running;
  std::string error;  // why it failed
  bool operator==(const CaseResult&) const = default;
};

// start_us, then the latency after each round.
std::vector<double> trajectory(const CaseResult& r);

std::string_view to_string(Status s);
nlohmann::json to_json(const CaseResult& r);
// Throws Error naming `origin` and the JSON pointer of what is wrong.
CaseResult parse_case_result(const nlohmann::json& j, const std::string& origin, const std::string& pointer);

}  // namespace tilewise::tune
