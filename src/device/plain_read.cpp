#include "device/plain_read.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/launchers.hpp"

namespace tilewise::device {

PlainRead::PlainRead(int64_t bytes, int sets, int sm_count, cudaStream_t stream, bool dependent)
    : bytes_((bytes + 15) / 16 * 16),
      pitch_((bytes + 255) / 256 * 256),
      sets_(sets),
      sm_count_(sm_count),
      dependent_(dependent) {
  if (bytes < 1) throw Error(fmt::format("a plain read of {} bytes: the size must be positive", bytes));
  if (sets < 1) throw Error(fmt::format("a plain read over {} sets: at least one is needed", sets));
  data_ = Buffer(size_t(pitch_) * size_t(sets));
  sink_ = Buffer(sizeof(unsigned));
  // Contents do not matter to a read, but an untouched allocation may not be backed yet: write it once.
  TW_CUDA(cudaMemsetAsync(data_.get(), 0x5A, data_.bytes(), stream));
}

Launch PlainRead::launch() const {
  return [this](int set, cudaStream_t stream) {
    if (set < 0 || set >= sets_) throw Error(fmt::format("plain read set {} is outside 0..{}", set, sets_ - 1));
    launch_stream_read(data_.as<char>() + set * pitch_, uint64_t(bytes_), sink_.as<unsigned>(), sm_count_, stream,
                       dependent_);
  };
}

}  // namespace tilewise::device
