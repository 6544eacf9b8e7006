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

// Where kernel sources and the CUDA headers they include are found: build-time paths, overridden by the
// environment (TILEWISE_KERNELS_DIR, CUDA_HOME) when the tool runs from another place.
std::string kernels_dir();
std::string cuda_include_dir();

}  // namespace tilewise::jit
