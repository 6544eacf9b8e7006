#include "tune/trajectory.hpp"

#include <fmt/format.h>

#include "select/json_file.hpp"

namespace tilewise::tune {

using nlohmann::json;

std::vector<double> trajectory(const CaseResult& r) {
  std::vector<double> out;
  if (r.start_us > 0) out.push_back(r.start_us);
  for (const Round& round : r.rounds) out.push_back(round.latency_us);
  return out;
}

std::string_view to_string(Status s) {
  return s == Status::finished ? "finished" : s == Status::failed ? "failed" : "running";
}

namespace {

json round_json(const Round& r) {
  return {{"group", r.group},           {"enumerated", r.enumerated}, {"legal", r.legal},
          {"infeasible", r.infeasible}, {"refitted", r.refitted},     {"compiled", r.compiled},
          {"timed", r.timed},           {"dropped", r.dropped},       {"wall_s", r.wall_s},
          {"incumbent", r.incumbent},   {"incumbent_us", r.incumbent_us}, {"winner", r.winner},
          {"winner_us", r.winner_us},   {"winner_reference_us", r.winner_reference_us},
          {"adopted", r.adopted},       {"latency_us", r.latency_us}, {"note", r.note}};
}

std::vector<double> numbers(const select::At& at) {
  std::vector<double> out;
  for (size_t i = 0; i < at.array().size(); ++i) out.push_back(at[i].number());
  return out;
}

bool boolean(const select::At& at) {
  if (!at.value.is_boolean()) at.fail("expected true or false");
  return at.value.get<bool>();
}

Round parse_round(const select::At& at) {
  Round r;
  r.group = at["group"].string();
  r.enumerated = at["enumerated"].count();
  r.legal = at["legal"].count();
  r.infeasible = at["infeasible"].count();
  r.refitted = at["refitted"].count();
  r.compiled = at["compiled"].count();
  r.timed = at["timed"].count();
  if (at.has("dropped")) r.dropped = at["dropped"].count();
  r.wall_s = at["wall_s"].number();
  r.incumbent = at["incumbent"].string();
  r.incumbent_us = numbers(at["incumbent_us"]);
  r.winner = at["winner"].string();
  r.winner_us = numbers(at["winner_us"]);
  if (at.has("winner_reference_us")) r.winner_reference_us = numbers(at["winner_reference_us"]);
  r.adopted = boolean(at["adopted"]);
  r.latency_us = at["latency_us"].number();
  r.note = at["note"].string();
  return r;
}

}  // namespace

json to_json(const CaseResult& r) {
  json rounds = json::array();
  for (const Round& round : r.rounds) rounds.push_back(round_json(round));
  return {{"id", r.c.id},
          {"family", r.c.family},
          {"problem", r.c.problem},
          {"mode", r.mode},
          {"warm_start", r.warm_start},
          {"space_digest", r.space_digest},
          {"status", to_string(r.status)},
          {"error", r.error},
          {"start_us", r.start_us},
          {"best", r.best},
          {"best_us", r.best_us},
          {"trajectory_us", trajectory(r)},  // for people reading the file; recomputed, never read back
          {"rounds", rounds}};
}

CaseResult parse_case_result(const json& j, const std::string& origin, const std::string& pointer) {
  const select::At at{j, origin, pointer};
  CaseResult r;
  r.c.id = at["id"].string();
  r.c.family = at["family"].string();
  try {
    r.c.problem = at["problem"].value.get<Problem>();
  } catch (const std::exception& e) {
    at["problem"].fail(e.what());
  }
  r.mode = at["mode"].string();
  r.warm_start = at["warm_start"].string();
  r.space_digest = at["space_digest"].string();
  const std::string status = at["status"].string();
  if (status == "finished") r.status = Status::finished;
  else if (status == "failed") r.status = Status::failed;
  else if (status == "running") r.status = Status::running;
  else at["status"].fail(fmt::format("'{}' is not running, finished or failed", status));
  r.error = at["error"].string();
  r.start_us = at["start_us"].number();
  r.best = at["best"].string();
  r.best_us = at["best_us"].number();
  const select::At rounds = at["rounds"];
  for (size_t i = 0; i < rounds.array().size(); ++i) r.rounds.push_back(parse_round(rounds[i]));
  return r;
}

}  // namespace tilewise::tune
