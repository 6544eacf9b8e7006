#pragma once
// Floors for the selection tests: points laid out by hand, so which family each problem gets is known.
#include "sample_database.hpp"
#include "select/floor.hpp"

namespace tilewise::testkit {

inline select::FloorPoint point(const Problem& p, std::map<std::string, select::Outcome> families) {
  return {p, std::move(families)};
}
// The configuration each outcome names is a placeholder: these floors are judged as written, not marked against the
// families' rules (select::mark_current).
inline select::Outcome faster(double s) { return {s, "faster", "timed"}; }
inline select::Outcome slower(double s) { return {s, "slower", "timed"}; }
inline select::Outcome tie(double s) { return {s, "none", "timed"}; }

// sm90 measured faster around 4096^3 bf16 TN (three points), gemv faster at M = 8 and 16 on N = 12288 and in
// nn.Linear's orientation (N = 1, 2, 4 on M = 12288), and sm90 slower around 1024^3. (M = 2..7 with C column-major is
// another class: ldc under 8 is cuBLASLt's alignment cliff.)
inline select::FloorRule sample_floor() {
  select::FloorRule r;
  r.gpu = "NVIDIA H200", r.sm_count = 132, r.cc = "9.0", r.neighbours = 2, r.radius = 1.0;
  r.points = {point(problem(4096, 4096, 4096), {{"sm90", faster(1.05)}}),
              point(problem(4096, 4096, 6144), {{"sm90", faster(1.04)}}),
              point(problem(6144, 4096, 4096), {{"sm90", faster(1.03)}}),
              point(problem(1024, 1024, 1024), {{"sm90", slower(0.90)}}),
              point(problem(1024, 1024, 1536), {{"sm90", faster(1.10)}}),
              point(problem(8, 12288, 4096), {{"gemv", faster(1.10)}, {"sm90", slower(0.5)}}),
              point(problem(16, 12288, 4096), {{"gemv", faster(1.08)}, {"sm90", slower(0.6)}}),
              point(problem(12288, 1, 4096), {{"gemv", faster(1.15)}}),
              point(problem(12288, 2, 4096), {{"gemv", faster(1.12)}}),
              point(problem(12288, 4, 4096), {{"gemv", faster(1.09)}})};
  return r;
}

}  // namespace tilewise::testkit
