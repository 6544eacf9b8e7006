// The kernel sources embedded in the library are the source tree's kernels/, and compile() needs no folder: an
// installed program runs without the source tree (cmake/kernel_sources.cmake, jit/nvrtc.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "core/error.hpp"
#include "expect_error.hpp"
#include "jit/nvrtc.hpp"

namespace tilewise::jit {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const fs::path& f = e.path();
    if (!e.is_regular_file() || (f.extension() != ".cuh" && f.extension() != ".h")) continue;
    std::ifstream in(f, std::ios::binary);
    out[f.lexically_relative(dir).generic_string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

std::map<std::string, std::string> as_map(const std::vector<KernelSource>& sources) {
  std::map<std::string, std::string> out;
  for (const KernelSource& k : sources) out[k.name] = k.text;
  return out;
}

TEST(KernelSources, TheEmbeddedOnesAreTheSourceTreesKernelsFolder) {
  const auto embedded = as_map(embedded_kernel_sources());
  EXPECT_EQ(embedded, files_under(fs::path(TILEWISE_SOURCE_DIR) / "kernels"));
  EXPECT_TRUE(embedded.contains("sm90/args.h"));  // by their path under kernels/, as the kernels include them
  EXPECT_TRUE(embedded.contains("sm90_gemm.cuh"));
}

TEST(KernelSources, CompileFindsTheirIncludesWithoutAFolder) {
  // NVRTC is given no include path to kernels/: "sm90/args.h" and "fill.cuh" resolve only from the sources it is
  // handed, so this compiles the same where the source tree is gone.
  const Compiled out = compile({"embedded.cu", "#include \"sm90/args.h\"\n#include \"fill.cuh\"\n",
                                {"tilewise::kernels::fill_uniform<__half>"}, "sm_90a", {}});
  EXPECT_GT(out.cubin.size(), 1000u);
}

TEST(KernelSources, AnOverrideFolderIsReadAsItIs) {
  const fs::path kernels = fs::path(TILEWISE_SOURCE_DIR) / "kernels";
  EXPECT_EQ(as_map(read_kernel_sources(kernels)), files_under(kernels));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { read_kernel_sources("/nonexistent/tilewise-kernels"); }),
                                "TILEWISE_KERNELS_DIR=/nonexistent/tilewise-kernels is not a folder of kernel sources"));
}

}  // namespace
}  // namespace tilewise::jit
