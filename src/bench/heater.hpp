#pragma once
// Clock warm-up. GPU clocks ramp over hundreds of milliseconds, so the harness runs a sustained tensor-core GEMM (the
// Heater) for warmup_s before the first timed region. The Heater is for that initial warm-up only: before each
// problem the harness re-warms with the problem's own work instead (replay_for, on the baseline arm's graph), because
// the Heater's power draw left the power-capped clock under what the problem itself sustains (measured:
// docs/notes/2026-12-03-family-rules.md, "The harness's warm-up").
#include <memory>

#include "device/cuda.hpp"
#include "device/timing.hpp"

namespace tilewise::bench {

class Heater {
 public:
  Heater();
  ~Heater();
  // Keeps the GPU busy for about `seconds`; returns the seconds actually spent.
  double run(double seconds, cudaStream_t stream);

 private:
  struct Load;
  std::unique_ptr<Load> load_;
};

// The per-problem re-warm: replays `timer`'s graph (one arm's own launches on the problem's own buffers, so the
// chip settles at the power that problem draws) back to back for about `seconds`; returns the seconds spent.
double replay_for(device::GraphTimer& timer, double seconds);

}  // namespace tilewise::bench
