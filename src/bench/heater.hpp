#pragma once
// Clock warm-up. GPU clocks ramp over hundreds of milliseconds and a 1 s warm-up once read 27% low where 10 s
// did not (seed 000), so the harness runs a sustained tensor-core GEMM (the Heater) for warmup_s before the first
// timed region. The Heater is for that initial warm-up only: before each problem the harness re-warms with the
// problem's own work instead (replay_for, on the baseline arm's graph), because an 8192^3 bf16 GEMM is the most
// power-hungry load there is, and run right before timing it left the power-capped SM clock about 8% under what
// the problem itself sustains (sq8192 bf16: 1395 MHz for cublaslt-default against 1545 MHz for torch.mm in a
// same-machine cross-check, results/square-bf16-warm-crosscheck.json), so the timed repeats started slow.
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
