#pragma once
// A plain read of a decode arm's weight bytes: kernels/stream_read.cuh over the same number of bytes and the same
// number of rotating copies as the arm, with no arithmetic. Timed beside the arm in the same run, it is what streaming
// those bytes costs with launch, ramp and tail included, which the read bandwidth (measured over 4 GB) leaves out:
// at 26 MB they are a large part of the time, so the bandwidth alone sets a floor no kernel reaches. It is launched as
// a programmatic dependent, as the decode arms with pdl=1 are, so its launch overlaps the read before it.
#include <cstdint>

#include "device/cuda.hpp"
#include "device/timing.hpp"

namespace tilewise::device {

class PlainRead {
 public:
  // `sets` copies of `bytes` (read in whole 16-byte loads: up to 15 bytes more), each on a 256-byte boundary.
  PlainRead(int64_t bytes, int sets, int sm_count, cudaStream_t stream);
  // Reads copy `set` (0 <= set < sets).
  Launch launch() const;

 private:
  int64_t bytes_, pitch_;
  int sets_, sm_count_;
  Buffer data_, sink_;
};

}  // namespace tilewise::device
