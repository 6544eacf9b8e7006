#pragma once
// A built kernel loaded into the current device's context (CUDA runtime library API; no driver library is linked,
// so the tool still starts on a machine without a GPU).
#include <cuda_runtime.h>

#include <memory>

#include "jit/cache.hpp"

namespace tilewise::jit {

class LoadedKernel {
 public:
  explicit LoadedKernel(const Built& built);  // throws Error naming the kernel when the cubin does not load
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Raises the dynamic shared-memory limit once; launches with optional cluster dimensions, and optionally as a
  // programmatic dependent of the work before it in the stream (the kernel must wait for it: griddepcontrol.wait).
  // An attribute of the kernel, not of this object: every holder of a shared kernel (load) asks the same.
  void set_max_dynamic_shared(int bytes) const;
  void launch(dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream, void** args, dim3 cluster = {1, 1, 1},
              bool programmatic = false) const;
  // What the loaded kernel takes at most (threads a CTA, which its registers limit; dynamic shared memory, as raised).
  cudaFuncAttributes attributes() const;
  // How many CTAs of this block size and dynamic shared memory one SM holds at once.
  int max_active_blocks_per_sm(int block_threads, int shared_bytes) const;
  // How many clusters of `cluster` CTAs can run at once with this block size and shared memory.
  int max_active_clusters(dim3 block, int shared_bytes, dim3 cluster) const;
  cudaKernel_t handle() const { return kernel_; }

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  std::string name_;
};

// One instantiation, loaded once per process: every plan that runs it (one per problem, and a serving engine meets
// a new token count at every step) shares the library, unloaded with its last holder. Built first (jit::build, from
// the disk cache or compiled) when no one holds it. Safe from several threads.
struct Loaded {
  std::shared_ptr<const LoadedKernel> kernel;
  ResourceUsage usage;
};
Loaded load(const KernelBuild& b);
// Instantiations held at the moment (for tests).
int loaded_count();

}  // namespace tilewise::jit
