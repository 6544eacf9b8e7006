#pragma once
// Clock warm-up. GPU clocks ramp over hundreds of milliseconds and a 1 s warm-up once read 27% low where 10 s
// did not (seed 000), so the harness runs a sustained tensor-core GEMM for warmup_s before the first timed
// region, and briefly again before each problem so idle gaps (fills, CPU checks) do not let the clocks drop.
#include <memory>

#include "device/cuda.hpp"

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

}  // namespace tilewise::bench
