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

// Number of CUDA devices, or an Error saying there is none and what works without one.
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

}  // namespace tilewise::device
