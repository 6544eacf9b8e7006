#pragma once
// A plain read: kernels/stream_read.cuh over copies of a buffer of its own, with no arithmetic. It measures the read
// bandwidth (4 GB, one copy, device/machine.cpp), and beside each decode arm it reads as many bytes over as many
// rotating copies as the arm (bench/runner.cpp): what streaming those bytes costs with launch, ramp and tail included,
// which the bandwidth leaves out. At 26 MB they are a large part of the time, so the bandwidth alone sets a floor no
// kernel reaches. Beside an arm it is launched as a programmatic dependent, as the decode arms with pdl=1 are, so its
// launch overlaps the read before it.
#include <cstdint>

#include "device/cuda.hpp"
#include "device/timing.hpp"

namespace tilewise::device {

class PlainRead {
 public:
  // `sets` copies of `bytes` (read in whole 16-byte loads: up to 15 bytes more), each on a 256-byte boundary;
  // `dependent`: launched as a programmatic dependent of the grid before it (kernels/pdl.h).
  PlainRead(int64_t bytes, int sets, int sm_count, cudaStream_t stream, bool dependent);
  // Reads copy `set` (0 <= set < sets).
  Launch launch() const;

 private:
  int64_t bytes_, pitch_;
  int sets_, sm_count_;
  bool dependent_;
  Buffer data_, sink_;
};

}  // namespace tilewise::device
