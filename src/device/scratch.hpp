#pragma once
// Scratch that the kernels of one stream take turns with: stream-K's fp32 partial sums, which a kernel leaves as it
// likes, and its flags, which every kernel leaves at zero (kernels/sm90/stream_k.h). A Context holds one per stream,
// so its plans for every token count share one set instead of each holding its own (3-8 MiB a plan at 24-64 tokens
// on a 4096-row weight, and a serving engine meets a new token count at most steps).
//
// A reservation larger than what is held allocates anew (at least twice as large, flags zeroed) and keeps the older
// buffers alive, so a plan built earlier, and a CUDA graph that captured it, still point at memory that is there; what
// is held stays under four times the largest reservation. Kernels that share it must run one after another: on one
// stream, as that stream runs them.
#include <cstddef>
#include <vector>

#include "device/cuda.hpp"

namespace tilewise::device {

class StreamScratch {
 public:
  struct Slots {
    float* partials = nullptr;
    int* flags = nullptr;
  };
  // Room for `partial_floats` partial sums and `flag_count` flags. Throws Error when the GPU has no room.
  Slots reserve(size_t partial_floats, size_t flag_count);
  size_t bytes_held() const;

 private:
  struct Pool {
    std::vector<Buffer> buffers;  // the last is the current one
    void* reserve(size_t bytes, bool zeroed);
  };
  Pool partials_, flags_;
};

}  // namespace tilewise::device
