#include "device/cuda.hpp"

#include <fmt/format.h>

namespace tilewise::device {

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  // Reported here, so a later TW_CUDA(cudaGetLastError()) does not blame the next call for it (sticky errors stay).
  cudaGetLastError();
  throw Error(fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(err), cudaGetErrorString(err), call,
                          file, line));
}

int sm_count() {
  int device = 0, count = 0;
  TW_CUDA(cudaGetDevice(&device));
  TW_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

namespace {

// Why the runtime finds no device, in words that fit the machine: without a driver at all the runtime still says
// "driver version is insufficient", which sends a user looking for a driver update.
std::string why_no_gpu(cudaError_t err, int count) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const auto version = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  if (driver == 0) return "no NVIDIA driver is installed";
  if (err == cudaErrorInsufficientDriver)
    return fmt::format("the NVIDIA driver supports CUDA {}, older than this build's runtime, CUDA {}", version(driver),
                       version(runtime));
  if (err == cudaSuccess && count == 0) return "the driver reports no devices";
  return cudaGetErrorString(err);
}

}  // namespace

int require_gpu() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();  // reported here, as throw_cuda does
    throw NoGpu(fmt::format("no CUDA GPU is usable here ({})", why_no_gpu(err, count)));
  }
  return count;
}

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
  const cudaError_t err = cudaMalloc(&ptr_, bytes);
  if (err != cudaSuccess) {
    ptr_ = nullptr;
    cudaGetLastError();  // reported here, as throw_cuda does
    throw Error(fmt::format("cannot allocate {:.1f} MiB on the GPU: {}", bytes / 1048576.0, cudaGetErrorString(err)));
  }
}

Buffer::~Buffer() {
  if (ptr_) cudaFree(ptr_);
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = o.ptr_, bytes_ = o.bytes_;
    o.ptr_ = nullptr, o.bytes_ = 0;
  }
  return *this;
}

Stream::Stream() { TW_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() { cudaStreamDestroy(s_); }
void Stream::sync() const { TW_CUDA(cudaStreamSynchronize(s_)); }

RelaxedCapture::RelaxedCapture() { TW_CUDA(cudaThreadExchangeStreamCaptureMode(&mode_)); }
RelaxedCapture::~RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }

}  // namespace tilewise::device
