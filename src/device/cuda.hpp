#pragma once
// CUDA runtime calls that fail throw tilewise::Error naming the call, so no failure passes unseen.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/error.hpp"

namespace tilewise::device {

[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);

#define TW_CUDA(call)                                                               \
  do {                                                                              \
    const cudaError_t tw_err_ = (call);                                             \
    if (tw_err_ != cudaSuccess) ::tilewise::device::throw_cuda(tw_err_, #call, __FILE__, __LINE__); \
  } while (0)

// What require_gpu throws: no GPU, no driver, or a driver too old for this build's runtime (the CLI adds what works
// without one).
class NoGpu : public Error {
 public:
  using Error::Error;
};

// Number of CUDA devices, or NoGpu saying why there is none.
int require_gpu();
// Multiprocessors of the current device: what persistent grids and tile rules size themselves by.
int sm_count();

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes);
  ~Buffer();
  Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr, o.bytes_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const;

 private:
  cudaStream_t s_ = nullptr;
};

// Under global-mode capture (this thread's, or any other's) every allocation and synchronous call fails and spoils the
// capture; what a stream's first call builds may need both (a cuBLASLt workspace, stream-K scratch), so it is built in
// relaxed mode, as torch's caching allocator allocates. One in scope relaxes this thread until it ends.
class RelaxedCapture {
 public:
  RelaxedCapture();
  ~RelaxedCapture();
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

}  // namespace tilewise::device
