#include "device/machine.hpp"

#include <cublasLt.h>
#include <fmt/format.h>
#include <nvrtc.h>

#include "device/cuda.hpp"
#include "device/plain_read.hpp"
#include "receipt/derive.hpp"

namespace tilewise::device {

namespace {
std::string cuda_version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }
}  // namespace

receipt::Machine library_versions() {
  receipt::Machine m;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) m.cuda_runtime = cuda_version_text(runtime);
  const size_t lt = cublasLtGetVersion();
  m.cublaslt = fmt::format("{}.{}.{}", lt / 10000, (lt / 100) % 100, lt % 100);
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) m.nvrtc = fmt::format("{}.{}", major, minor);
  return m;
}

std::string pci_bus_id(int device) {
  char id[32] = {};
  TW_CUDA(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}

receipt::Machine describe_machine(const Nvml& nvml) {
  receipt::Machine m = library_versions();
  int device = 0;
  TW_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  TW_CUDA(cudaGetDeviceProperties(&prop, device));
  m.gpu = prop.name;
  m.sm_count = prop.multiProcessorCount;
  m.cc = fmt::format("{}.{}", prop.major, prop.minor);
  m.l2_bytes = prop.l2CacheSize;
  m.smem_per_block_optin = int64_t(prop.sharedMemPerBlockOptin);
  m.memory_bytes = int64_t(prop.totalGlobalMem);
  int driver = 0;
  TW_CUDA(cudaDriverGetVersion(&driver));
  m.driver = nvml.available() ? fmt::format("{} (CUDA {})", nvml.driver_version(), cuda_version_text(driver))
                              : fmt::format("CUDA {}", cuda_version_text(driver));
  m.sm_clock_max_mhz = nvml.max_sm_clock_mhz();
  m.mem_clock_max_mhz = nvml.max_mem_clock_mhz();
  m.power_limit_w = nvml.power_limit_w();
  return m;
}

receipt::ReadBandwidth measure_read_bandwidth(int64_t bytes, int passes, int sm_count) {
  Stream stream;
  const PlainRead read(bytes, 1, sm_count, stream.get(), /*dependent=*/false);
  const Launch launch = read.launch();
  cudaEvent_t start, stop;
  TW_CUDA(cudaEventCreate(&start));
  TW_CUDA(cudaEventCreate(&stop));
  receipt::ReadBandwidth bw{bytes, {}};
  for (int pass = -1; pass < passes; ++pass) {
    TW_CUDA(cudaEventRecord(start, stream.get()));
    launch(0, stream.get());
    TW_CUDA(cudaEventRecord(stop, stream.get()));
    TW_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    TW_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (pass >= 0) bw.us.push_back(ms * 1000.0);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return bw;
}

}  // namespace tilewise::device
