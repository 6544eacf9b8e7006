#pragma once
// A timing source for the tuner's tests: a scripted true latency per configuration, seen through the kind of noise a
// GPU gives. Each call draws one drift factor common to all its candidates (clocks move between rounds, not within an
// interleaved round), one per chunk where it times in chunks, and independent noise per sample. Every number is a
// function of (seed, case, candidate list, chunk, candidate, repeat), so a campaign resumed after an interruption
// sees the numbers an uninterrupted one saw.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tune/measure.hpp"
#include "tune/trajectory.hpp"

namespace tilewise::testkit {

// Not a tilewise::Error, so the campaign lets it through as an interruption (a killed process) rather than recording
// a failed case.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

inline uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t hash(uint64_t h, std::string_view text) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return mix(h);
}

inline double unit(uint64_t h) { return double(h >> 11) / double(1ull << 53); }  // [0, 1)

class ScriptedMeasure : public tune::Measure {
 public:
  std::function<double(const tune::Config&)> truth;  // the latency the candidate really has, us
  uint64_t seed = 1;
  int repeats = 10;
  double noise = 0.03;  // each sample within +-3% of the drifted truth
  double drift = 0.10;  // each call's (each chunk's) clocks within +-10%
  int chunk = 0;        // candidates per chunk, the incumbent included; below 2: all in one
  double drop_margin = -1;  // as the harness: a candidate this far over the first one in a repeat stops there
  std::function<std::string(const tune::Config&)> fails_to_build, fails_check;  // an error, or "" when fine
  int interrupt_at = -1;  // the call (0-based) that throws Interrupted
  int calls = 0;
  std::vector<std::vector<tune::Config>> asked;  // every candidate list, in order

  std::vector<tune::Timing> measure(const tune::Case& c, const std::vector<tune::Config>& candidates) override {
    if (calls++ == interrupt_at) throw Interrupted();
    asked.push_back(candidates);
    uint64_t round = hash(hash(seed, c.id), "round");
    for (const tune::Config& cand : candidates) round = hash(round, tune::to_string(cand));
    // As the harness: candidates in chunks of `chunk` (the first candidate, the incumbent, timed again in each),
    // each chunk under clocks of its own.
    const auto chunk_of = [&](size_t i) { return chunk < 2 || i == 0 ? size_t(0) : (i - 1) / size_t(chunk - 1); };
    const auto samples = [&](const tune::Config& cand, size_t in_chunk) {
      const uint64_t salt = hash(round, std::to_string(in_chunk));
      const double clocks = 1 + drift * (2 * unit(salt) - 1);
      const uint64_t h = hash(salt, tune::to_string(cand));
      std::vector<double> us;
      for (int r = 0; r < repeats; ++r)
        us.push_back(truth(cand) * clocks * (1 + noise * (2 * unit(mix(h + uint64_t(r))) - 1)));
      return us;
    };
    std::vector<tune::Timing> out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const tune::Config& cand = candidates[i];
      tune::Timing t;
      if (const std::string e = fails_to_build ? fails_to_build(cand) : ""; !e.empty()) {
        t.error = e;
        out.push_back(t);
        continue;
      }
      t.compiled = true;
      if (const std::string e = fails_check ? fails_check(cand) : ""; !e.empty()) {
        t.error = e;
        out.push_back(t);
        continue;
      }
      t.us = samples(cand, chunk_of(i));
      if (chunk_of(i) > 0 && !out[0].us.empty()) t.incumbent_us = samples(candidates[0], chunk_of(i));
      out.push_back(t);
    }
    if (drop_margin >= 0 && !out.empty() && !out[0].us.empty())
      for (size_t j = 1; j < out.size(); ++j) {
        const std::vector<double> beside = tune::reference_of(out, j);
        for (size_t r = 0; r < out[j].us.size(); ++r)
          if (tune::ruled_out(out[j].us[r], beside[r], drop_margin)) {
            out[j].us.resize(r + 1);
            out[j].dropped = true;
            break;
          }
      }
    return out;
  }
};

// A finished descent's rounds: one a group, then the confirm round exactly where the descent moved off its warm start
// (tune/descent.hpp).
inline bool rounds_are_groups_then_confirm(const tune::CaseResult& r, size_t groups) {
  if (r.rounds.size() < groups) return false;
  bool moved = false;
  for (size_t i = 0; i < groups; ++i) moved |= r.rounds[i].adopted;
  return moved ? r.rounds.size() == groups + 1 && r.rounds.back().group == tune::kConfirmRound
               : r.rounds.size() == groups;
}

}  // namespace tilewise::testkit
