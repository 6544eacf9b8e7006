// Every kernel source compiles with NVRTC for sm_90a, on a machine without a GPU (this is CI's compile check).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "jit/nvrtc.hpp"

namespace tilewise::jit {
namespace {

// Each kernel header with the instantiations the tool uses.
const std::map<std::string, std::vector<std::string>> kernel_sources = {
    {"fill.cuh",
     {"tilewise::kernels::fill_uniform<__nv_bfloat16>", "tilewise::kernels::fill_uniform<__half>",
      "tilewise::kernels::fill_uniform<__nv_fp8_e4m3>"}},
    {"reference_gemm.cuh",
     {"tilewise::kernels::reference_gemm<__nv_bfloat16>", "tilewise::kernels::reference_gemm<__half>",
      "tilewise::kernels::reference_gemm<__nv_fp8_e4m3>", "tilewise::kernels::compare_to_reference<__nv_bfloat16>",
      "tilewise::kernels::compare_to_reference<__half>"}},
    {"stream_read.cuh", {"tilewise::kernels::stream_read"}},
};

TEST(NvrtcKernels, EveryKernelHeaderIsChecked) {
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kernels_dir()))
    if (entry.path().extension() == ".cuh") on_disk.insert(entry.path().filename().string());
  std::set<std::string> checked;
  for (const auto& [file, _] : kernel_sources) checked.insert(file);
  EXPECT_EQ(on_disk, checked) << "a kernel header in kernels/ has no NVRTC check";
}

TEST(NvrtcKernels, CompileForSm90a) {
  for (const auto& [file, expressions] : kernel_sources) {
    SCOPED_TRACE(file);
    const Compiled out = compile({"nvrtc-check-" + file + ".cu", "#include \"" + file + "\"\n", expressions, "sm_90a", {}});
    EXPECT_GT(out.cubin.size(), 1000u);
    ASSERT_EQ(out.lowered_names.size(), expressions.size());
    for (const std::string& name : out.lowered_names) EXPECT_EQ(name.rfind("_Z", 0), 0u) << name;
  }
}

TEST(NvrtcKernels, CompileErrorNamesTheSourceAndCarriesTheLog) {
  try {
    compile({"broken.cu", "__global__ void k() { undeclared_symbol = 1; }\n", {}, "sm_90a", {}});
    FAIL() << "a broken source compiled";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken.cu"), std::string::npos) << what;
    EXPECT_NE(what.find("undeclared_symbol"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tilewise::jit
