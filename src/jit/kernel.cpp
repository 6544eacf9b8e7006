#include "jit/kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace tilewise::jit {

namespace {

cudaLaunchAttribute cluster_attribute(dim3 cluster) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster.x;
  attr.val.clusterDim.y = cluster.y;
  attr.val.clusterDim.z = cluster.z;
  return attr;
}

void check(cudaError_t err, const char* what, const std::string& name) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // reported here, so the next call's check does not report it again
  throw Error(fmt::format("{} failed for kernel {}: {}", what, name, cudaGetErrorString(err)));
}

}  // namespace

LoadedKernel::LoadedKernel(const Built& built) : name_(built.lowered_name) {
  check(cudaLibraryLoadData(&library_, built.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "loading the cubin", name_);
  const cudaError_t err = cudaLibraryGetKernel(&kernel_, library_, built.lowered_name.c_str());
  if (err != cudaSuccess) {
    cudaLibraryUnload(library_);
    check(err, "finding the kernel in its cubin", name_);
  }
}

LoadedKernel::~LoadedKernel() {
  if (library_) cudaLibraryUnload(library_);
}

void LoadedKernel::set_max_dynamic_shared(int bytes) const {
  check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
        "raising the dynamic shared-memory limit", name_);
}

cudaFuncAttributes LoadedKernel::attributes() const {
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel_)), "reading the attributes", name_);
  return attr;
}

int LoadedKernel::max_active_blocks_per_sm(int block_threads, int shared_bytes) const {
  int count = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, reinterpret_cast<const void*>(kernel_), block_threads,
                                                      size_t(shared_bytes)),
        "querying the active blocks", name_);
  return count;
}

int LoadedKernel::max_active_clusters(dim3 block, int shared_bytes, dim3 cluster) const {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(cluster.x * cluster.y * cluster.z);
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = size_t(shared_bytes);
  cudaLaunchAttribute attr = cluster_attribute(cluster);
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int count = 0;
  check(cudaOccupancyMaxActiveClusters(&count, reinterpret_cast<const void*>(kernel_), &cfg),
        "querying the active clusters", name_);
  return count;
}

void LoadedKernel::launch(dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream, void** args, dim3 cluster,
                          bool programmatic) const {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = size_t(shared_bytes);
  cfg.stream = stream;
  cudaLaunchAttribute attrs[2];
  unsigned count = 0;
  if (cluster.x * cluster.y * cluster.z > 1) attrs[count++] = cluster_attribute(cluster);
  if (programmatic) {
    attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  cfg.attrs = count ? attrs : nullptr;
  cfg.numAttrs = count;
  check(cudaLaunchKernelExC(&cfg, reinterpret_cast<const void*>(kernel_), args), "launching", name_);
}

namespace {

struct Held {
  std::weak_ptr<const LoadedKernel> kernel;
  ResourceUsage usage;
};

std::mutex held_mutex;
std::map<std::string, Held>& held() {
  static std::map<std::string, Held> kernels;
  return kernels;
}

}  // namespace

Loaded load(const KernelBuild& b) {
  const std::string key = cache_key(b);  // the one identity of a build, as the disk cache keys it
  {
    const std::lock_guard lock(held_mutex);
    if (auto it = held().find(key); it != held().end())
      if (std::shared_ptr<const LoadedKernel> kernel = it->second.kernel.lock())
        return {std::move(kernel), it->second.usage};
  }
  // Built and loaded outside the lock: a compile can take seconds, and other threads load other kernels meanwhile.
  const Built built = build(b);
  auto kernel = std::make_shared<const LoadedKernel>(built);
  const std::lock_guard lock(held_mutex);
  std::erase_if(held(), [](const auto& entry) { return entry.second.kernel.expired(); });
  Held& entry = held()[key];
  if (std::shared_ptr<const LoadedKernel> raced = entry.kernel.lock()) return {std::move(raced), entry.usage};
  entry = {kernel, built.usage};
  return {std::move(kernel), built.usage};
}

int loaded_count() {
  const std::lock_guard lock(held_mutex);
  return int(std::count_if(held().begin(), held().end(), [](const auto& e) { return !e.second.kernel.expired(); }));
}

}  // namespace tilewise::jit
