#include "jit/nvrtc.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "core/file.hpp"

namespace tilewise::jit {

namespace {

void check(nvrtcResult r, const char* call, const std::string& name) {
  if (r != NVRTC_SUCCESS) throw Error(fmt::format("NVRTC {} failed for {}: {}", call, name, nvrtcGetErrorString(r)));
}

}  // namespace

std::vector<KernelSource> read_kernel_sources(const std::string& folder) {
  const std::filesystem::path dir(folder);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("TILEWISE_KERNELS_DIR={} is not a folder of kernel sources", dir.string()));
  std::vector<KernelSource> out;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    const std::filesystem::path& f = it->path();
    if (!it->is_regular_file(ec) || (f.extension() != ".cuh" && f.extension() != ".h")) continue;
    out.push_back({f.lexically_relative(dir).generic_string(), files::read(f.string())});
  }
  if (ec) throw Error(fmt::format("cannot list kernel sources under {}: {}", dir.string(), ec.message()));
  std::sort(out.begin(), out.end(), [](const KernelSource& a, const KernelSource& b) { return a.name < b.name; });
  return out;
}

const std::string& kernel_sources_folder() {
  static const std::string folder = [] {
    const char* env = std::getenv("TILEWISE_KERNELS_DIR");
    return env && *env ? std::string(env) : std::string();
  }();
  return folder;
}

const std::vector<KernelSource>& kernel_sources() {
  static const std::vector<KernelSource> sources =
      kernel_sources_folder().empty() ? embedded_kernel_sources() : read_kernel_sources(kernel_sources_folder());
  return sources;
}

std::string cuda_include_dir() {
  if (const char* env = std::getenv("CUDA_HOME")) return std::string(env) + "/include";
  return TILEWISE_BUILD_CUDA_INCLUDE_DIR;
}

Compiled compile(const CompileRequest& req) {
  nvrtcProgram prog = nullptr;
  // Every kernel source goes with the program as a header NVRTC resolves #include "name" to, so no folder is read.
  const std::vector<KernelSource>& sources = kernel_sources();
  std::vector<const char*> headers, names;
  for (const KernelSource& k : sources) headers.push_back(k.text.c_str()), names.push_back(k.name.c_str());
  check(nvrtcCreateProgram(&prog, req.source.c_str(), req.name.c_str(), int(sources.size()), headers.data(),
                           names.data()),
        "create", req.name);
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  for (const std::string& e : req.name_expressions) check(nvrtcAddNameExpression(prog, e.c_str()), "add name", req.name);

  std::vector<std::string> opts = {"--gpu-architecture=" + req.arch, "--std=c++20", "-I" + cuda_include_dir(),
                                   "-I" + cuda_include_dir() + "/cccl"};
  opts.insert(opts.end(), req.options.begin(), req.options.end());
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  const nvrtcResult result = nvrtcCompileProgram(prog, int(argv.size()), argv.data());

  Compiled out;
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  if (result != NVRTC_SUCCESS)
    throw Error(fmt::format("compiling {} for {} failed: {}\n{}", req.name, req.arch, nvrtcGetErrorString(result), out.log));

  size_t cubin_size = 0;
  check(nvrtcGetCUBINSize(prog, &cubin_size), "cubin size", req.name);
  out.cubin.resize(cubin_size);
  check(nvrtcGetCUBIN(prog, out.cubin.data()), "cubin", req.name);
  for (const std::string& e : req.name_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog, e.c_str(), &lowered), "lowered name", req.name);
    out.lowered_names.emplace_back(lowered);
  }
  return out;
}

}  // namespace tilewise::jit
