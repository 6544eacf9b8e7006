#pragma once
// What a GPU test that drives arms through the harness sets up: a problem's operand sets, filled from a seed, the
// fp32 reference of set 0, and a workbench over them (half-millisecond graphs, one replay) in the suite orientation
// given.
#include <cstdint>

#include "bench/arm.hpp"

namespace tilewise::testkit {

struct ArmBench {
  ArmBench(const Problem& p, int sets, uint64_t seed, cudaStream_t stream, int selection_rounds,
           Orientation orientation = Orientation::column_major)
      : problem(p),
        ops(problem, sets, device::Reference::bytes(problem)),
        ref(problem, (ops.fill(seed, stream), ops.set(0)), stream),
        wb{problem, ops, ref, stream, 0.5, 1, selection_rounds, false, 0, orientation} {}
  ArmBench(const ArmBench&) = delete;
  ArmBench& operator=(const ArmBench&) = delete;

  const Problem problem;
  device::Operands ops;
  const device::Reference ref;
  const bench::Workbench wb;
};

}  // namespace tilewise::testkit
