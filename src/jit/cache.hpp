#pragma once
// The compile cache: a kernel instantiation is compiled once per (kernel sources, configuration, architecture, NVRTC
// version, options) and kept on disk at $TILEWISE_CACHE_DIR (default ~/.cache/tilewise). Several processes may share
// the directory: entries are written to a temporary file and renamed into place. The folder runs only what it built
// (jit/cache_folder.hpp): an entry that does not verify under its secret key (truncated, foreign, forged, edited) or
// is not a plain file of the user's is compiled again and replaced, never loaded.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tilewise::jit {

// One kernel instantiation to build: `#include "<kernel_file>"` and emit `name_expression`
// (e.g. "tilewise::kernels::sm90_gemm<Cfg<128,256,64,4,2>>").
struct KernelBuild {
  std::string kernel_file;             // under kernels/, e.g. "sm90_gemm.cuh"
  std::string name_expression;
  std::string config_text;             // the family's canonical configuration string, shown in errors
  std::string arch = "sm_90a";
  std::vector<std::string> options;    // extra NVRTC options
};

// What ptxas reported for the kernel (from `--ptxas-options=-v`).
struct ResourceUsage {
  int registers = -1;
  int stack_frame_bytes = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int shared_bytes = 0;   // static shared memory
  // ptxas serialized the kernel's wgmma (warning C7512, e.g. for want of registers): each waits for the one before,
  // so the tensor cores idle between them (docs/notes/2026-12-06-two-ctas-an-sm.md). Not an error, a slow kernel.
  bool wgmma_serialized = false;
  bool spills() const { return stack_frame_bytes > 0 || spill_store_bytes > 0 || spill_load_bytes > 0; }
  // Every reason the kernel fails the compile check, comma-separated ("" when it passes).
  std::string faults() const;
};

struct Built {
  std::vector<char> cubin;
  std::string lowered_name;
  std::string log;        // NVRTC and ptxas output
  ResourceUsage usage;
  bool from_cache = false;
};

// The one helper that derives the cache key: a hex digest over every input that changes the cubin.
std::string cache_key(const KernelBuild& b);

std::filesystem::path cache_dir();  // $TILEWISE_CACHE_DIR, else ~/.cache/tilewise (jit/cache_folder.hpp)

// The kernel sources this process compiles, as a receipt names them: the digest of every source (the one that keys
// the cache) and, when TILEWISE_KERNELS_DIR holds sources other than those built into the library, that folder.
struct SourcesIdentity {
  std::string digest;
  std::string folder;  // empty: the embedded sources
};
SourcesIdentity kernel_sources_identity();

// From the cache, or compiled and stored. Throws Error naming the kernel file and configuration on a compile error,
// and naming the folder when the cache folder cannot be trusted (jit/cache_folder.hpp).
Built build(const KernelBuild& b);
// Told, as the builds the cache lacked finish, how many of them have (compiled or failed), of how many.
using Progress = std::function<void(size_t finished, size_t to_compile)>;
// Several at once: the ones the cache lacks compiled in parallel by worker processes, one per usable core; results in
// the order asked. The first error is rethrown after all builds finished, so the cache keeps every success.
std::vector<Built> build_all(const std::vector<KernelBuild>& builds, const Progress& progress = {});

ResourceUsage parse_ptxas_usage(const std::string& log);

}  // namespace tilewise::jit
