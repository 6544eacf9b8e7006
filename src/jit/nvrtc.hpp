#pragma once
// Run-time compilation with NVRTC. Today it proves in CI (no GPU) that every kernel source compiles for sm_90a;
// the kernel families compile their instantiations through it.
#include <string>
#include <vector>

namespace tilewise::jit {

struct Compiled {
  std::vector<char> cubin;
  std::string log;
  std::vector<std::string> lowered_names;  // one per name expression, in order
};

struct CompileRequest {
  std::string name;                           // shown in errors, e.g. the kernel file and configuration
  std::string source;
  std::vector<std::string> name_expressions;  // template instantiations to emit, e.g. "ns::kernel<float>"
  std::string arch = "sm_90a";
  std::vector<std::string> options;           // extra NVRTC options
};

// Throws Error naming the request and carrying NVRTC's log when compilation fails.
Compiled compile(const CompileRequest& request);

// A kernel source as NVRTC includes it: its path under kernels/ ("sm90/args.h") and its text.
struct KernelSource {
  std::string name;
  std::string text;
};
// The kernel sources compile() offers NVRTC, sorted by name: the ones embedded in the library at build time
// (cmake/kernel_sources.cmake), so that an installed program needs no source tree, or with TILEWISE_KERNELS_DIR set,
// every .cuh and .h under that folder as it is now (to try an edited kernel without rebuilding). Read once a process.
// Throws Error when the override names no readable folder.
const std::vector<KernelSource>& kernel_sources();
const std::string& kernel_sources_folder();  // TILEWISE_KERNELS_DIR as kernel_sources() read it; empty: embedded
const std::vector<KernelSource>& embedded_kernel_sources();  // generated: kernel_sources.cpp in the build folder
// Every .cuh and .h under `dir`, named by their path under it, sorted; Error when `dir` is not a readable folder.
std::vector<KernelSource> read_kernel_sources(const std::string& dir);

// Where the CUDA headers the kernels include are found: the build's toolkit, or $CUDA_HOME/include.
std::string cuda_include_dir();

}  // namespace tilewise::jit
