#include "device/scratch.hpp"

#include <algorithm>

namespace tilewise::device {

void* StreamScratch::Pool::reserve(size_t bytes, bool zeroed) {
  if (!buffers.empty() && buffers.back().bytes() >= bytes) return buffers.back().get();
  const size_t held = buffers.empty() ? 0 : buffers.back().bytes();
  Buffer grown(std::max(bytes, 2 * held));
  if (zeroed) {
    // On a stream of its own, waited for: cudaMemset runs on the legacy stream, which the non-blocking streams torch
    // uses do not wait for, and a memset on the caller's stream would go into a graph being captured instead.
    const Stream zeroing;
    TW_CUDA(cudaMemsetAsync(grown.get(), 0, grown.bytes(), zeroing.get()));
    zeroing.sync();
  }
  buffers.push_back(std::move(grown));
  return buffers.back().get();
}

StreamScratch::Slots StreamScratch::reserve(size_t partial_floats, size_t flag_count) {
  Slots s;
  s.partials = static_cast<float*>(partials_.reserve(std::max<size_t>(partial_floats, 1) * sizeof(float), false));
  s.flags = static_cast<int*>(flags_.reserve(std::max<size_t>(flag_count, 1) * sizeof(int), true));
  return s;
}

size_t StreamScratch::bytes_held() const {
  size_t bytes = 0;
  for (const Pool* pool : {&partials_, &flags_})
    for (const Buffer& b : pool->buffers) bytes += b.bytes();
  return bytes;
}

}  // namespace tilewise::device
