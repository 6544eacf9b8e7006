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
      "tilewise::kernels::compare_to_reference<__half>", "tilewise::kernels::reference_gemm<__nv_bfloat16, float>",
      "tilewise::kernels::reference_gemm<__half, float>", "tilewise::kernels::reference_gemm<__nv_fp8_e4m3, float>",
      "tilewise::kernels::reference_gemm<float, __nv_bfloat16>", "tilewise::kernels::reference_gemm<float, __half>"}},
    {"stream_read.cuh", {"tilewise::kernels::stream_read"}},
    // Every weight format, every activation type, M at both ends, every cache hint, K split inside the CTA, PDL; each
    // engine once more storing y rows (the trailing 1: nn.Linear's orientation).
    {"gemv.cuh",
     {"tilewise::kernels::gemv::gemv<1, 0, 0, 256, 2, 1, 4, 2, 0, 0>", "tilewise::kernels::gemv::gemv<16, 1, 1, 256, 1, 1, 4, 0, 1, 0>",
      "tilewise::kernels::gemv::gemv<1, 2, 0, 256, 2, 2, 4, 1, 0, 1>", "tilewise::kernels::gemv::gemv<3, 3, 0, 128, 4, 4, 2, 3, 1, 1>",
      "tilewise::kernels::gemv::gemv<16, 4, 1, 256, 1, 8, 4, 4, 0, 0>", "tilewise::kernels::gemv::gemv<4, 5, 2, 512, 2, 1, 8, 2, 0, 1>",
      "tilewise::kernels::gemv::gemv<3, 0, 0, 256, 2, 2, 4, 2, 1, 0, 1>"}},
    // M-major x: both 16-bit types, M at both ends and between the halves, every cache hint, K split, PDL.
    // Parameters: M, weights, x, threads, cols, ksplit, unroll, hint, pdl.
    {"gemv_nn.cuh",
     {"tilewise::kernels::gemv::gemv_nn<16, 0, 0, 256, 1, 8, 4, 2, 1>", "tilewise::kernels::gemv::gemv_nn<1, 1, 1, 128, 4, 1, 8, 0, 0>",
      "tilewise::kernels::gemv::gemv_nn<5, 0, 0, 512, 2, 4, 2, 3, 1>", "tilewise::kernels::gemv::gemv_nn<12, 1, 1, 256, 8, 2, 1, 4, 0>",
      "tilewise::kernels::gemv::gemv_nn<9, 0, 0, 128, 2, 2, 2, 1, 0>", "tilewise::kernels::gemv::gemv_nn<4, 1, 1, 128, 4, 1, 8, 0, 0, 1>"}},
    // Each weight format the mma engine takes with each activation type it takes, M on both sides of 8, one, two and
    // four 16-column tiles a warp, both x layouts, PDL, K split in slices and in turns, and the next step's loads
    // issued while this one computes (int4 g128 and fp8 weights). Parameters: M, weights, x, x layout, threads, cols,
    // ksplit, unroll, hint, pdl, interleave, prefetch.
    {"gemv_mma.cuh",
     {"tilewise::kernels::gemv::gemv_mma<1, 0, 0, 0, 256, 16, 8, 4, 2, 1, 1, 0>", "tilewise::kernels::gemv::gemv_mma<16, 1, 1, 1, 256, 32, 2, 4, 3, 0, 0, 0>",
      "tilewise::kernels::gemv::gemv_mma<5, 5, 0, 1, 128, 16, 1, 2, 0, 0, 0, 1>", "tilewise::kernels::gemv::gemv_mma<9, 5, 1, 1, 512, 32, 4, 8, 1, 1, 0, 0>",
      "tilewise::kernels::gemv::gemv_mma<16, 5, 2, 0, 256, 64, 4, 1, 4, 0, 1, 1>", "tilewise::kernels::gemv::gemv_mma<1, 2, 0, 0, 256, 16, 8, 8, 2, 0, 0, 0>",
      "tilewise::kernels::gemv::gemv_mma<16, 2, 1, 0, 128, 64, 2, 1, 3, 1, 1, 0>", "tilewise::kernels::gemv::gemv_mma<3, 4, 0, 1, 128, 16, 1, 2, 2, 0, 0, 0>",
      "tilewise::kernels::gemv::gemv_mma<12, 4, 1, 0, 256, 16, 8, 1, 0, 0, 1, 0>", "tilewise::kernels::gemv::gemv_mma<16, 0, 0, 0, 256, 16, 4, 4, 0, 1, 0, 0, 1>",
      "tilewise::kernels::gemv::gemv_mma<1, 4, 0, 0, 128, 32, 4, 2, 2, 1, 0, 1>", "tilewise::kernels::gemv::gemv_mma<16, 4, 1, 0, 128, 64, 4, 1, 2, 1, 1, 1, 1>"}},
    // The bulk engine: each format it takes, M on both sides of 8, both copy policies, both x layouts, PDL.
    // Parameters: M, weights, x, x layout, consumer warps, units a warp, stages, hint, pdl.
    {"gemv_bulk.cuh",
     {"tilewise::kernels::gemv::gemv_bulk<1, 0, 0, 0, 8, 4, 4, 2, 0>", "tilewise::kernels::gemv::gemv_bulk<16, 1, 1, 1, 4, 2, 6, 3, 1>",
      "tilewise::kernels::gemv::gemv_bulk<1, 2, 0, 0, 8, 4, 3, 2, 1>", "tilewise::kernels::gemv::gemv_bulk<9, 4, 1, 1, 8, 2, 2, 3, 0>",
      "tilewise::kernels::gemv::gemv_bulk<1, 5, 0, 0, 8, 4, 4, 2, 0>", "tilewise::kernels::gemv::gemv_bulk<16, 5, 2, 0, 16, 1, 8, 2, 0>", "tilewise::kernels::gemv::gemv_bulk<8, 0, 0, 0, 8, 4, 4, 2, 1, 1>"}},
    // The mma-order engine: both int4 formats and 16-bit x types, one to eight tokens, one, two and four quarters a
    // CTA, both cache policies it is timed with, PDL, a persistent grid, y rows. Parameters: M, weights, x, threads,
    // ksplit, unroll, hint, pdl, persistent.
    {"gemv_mma_order.cuh",
     {"tilewise::kernels::gemv::gemv_mma_order<1, 4, 0, 128, 4, 4, 2, 1, 0>", "tilewise::kernels::gemv::gemv_mma_order<8, 3, 1, 256, 4, 2, 3, 0, 0>",
      "tilewise::kernels::gemv::gemv_mma_order<5, 4, 1, 256, 2, 8, 2, 0, 0, 1>", "tilewise::kernels::gemv::gemv_mma_order<2, 3, 0, 512, 4, 1, 2, 1, 0>",
      "tilewise::kernels::gemv::gemv_mma_order<8, 4, 0, 1024, 8, 2, 2, 1, 1>", "tilewise::kernels::gemv::gemv_mma_order<3, 3, 1, 256, 8, 2, 2, 0, 1, 1>"}},
    // The quantizer from each source type into each format, and each inverse.
    {"quantize.cuh",
     {"tilewise::kernels::quant::quantize_groups<__nv_bfloat16, 2>", "tilewise::kernels::quant::quantize_groups<__half, 3>",
      "tilewise::kernels::quant::quantize_groups<__nv_fp8_e4m3, 4>", "tilewise::kernels::quant::quantize_fp8_rows<__nv_bfloat16>",
      "tilewise::kernels::quant::convert_rows<__half, __nv_bfloat16>", "tilewise::kernels::quant::convert_rows<__nv_bfloat16, __half>",
      "tilewise::kernels::quant::dequantize<0, float>", "tilewise::kernels::quant::dequantize<1, __half>",
      "tilewise::kernels::quant::dequantize<2, __nv_bfloat16>", "tilewise::kernels::quant::dequantize<3, __half>",
      "tilewise::kernels::quant::dequantize<4, __nv_bfloat16>", "tilewise::kernels::quant::dequantize<5, float>"}},
    // Each input type and A layout, both epilogues, both schedules, each cluster shape. Parameters: block_m,
    // block_n, stages, consumers, pingpong, cluster_m, cluster_n, raster_m, group, input, a_major_m, store, split,
    // swap_ab, pdl and weights (absent: 0, as the problem stores B). The packed ones: int4 g128 and g32, bf16 and
    // fp16, each store, stream-K, ping-pong, swapped, and a 16-token width.
    {"sm90_gemm.cuh",
     {"tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<256,128,4,2,0,1,1,1,8,0,0,0,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,128,3,1,0,2,1,0,4,1,1,1,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<256,128,3,2,0,1,2,1,8,2,0,1,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,128,4,2,1,1,2,1,8,0,1,1,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<16,64,6,1,0,1,1,1,8,0,0,0,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<192,128,4,2,1,2,1,0,4,1,0,2,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<256,128,4,2,0,1,1,1,8,0,0,2,2,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,64,6,1,0,1,1,1,8,2,0,0,4,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<16,64,16,1,0,1,1,1,8,0,0,0,2,0,1>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,128,4,2,0,1,2,1,8,1,1,1,1,0,1>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<16,64,8,1,0,1,1,1,8,2,0,0,4,1,1>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<96,192,6,3,0,1,1,1,8,0,0,0,1,0,1>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,192,4,3,0,1,1,0,4,1,1,2,3,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<96,192,5,3,0,1,1,1,8,2,0,3,1,0,1>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<160,128,4,2,1,1,2,0,4,1,0,3,1,0,0>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,128,8,2,0,1,1,1,8,0,0,1,1,0,0,4>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<64,128,8,2,0,1,1,1,8,1,0,0,2,0,0,3>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<128,128,6,2,1,1,1,1,8,0,0,2,1,0,0,4>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<16,128,8,2,0,1,1,1,8,0,0,0,1,1,0,4>>",
      "tilewise::kernels::sm90_gemm<tilewise::kernels::Sm90Gemm<96,128,6,1,0,1,1,0,4,1,0,3,1,0,0,3>>"}},
    // The reorder of packed int4 weights into the sm90 kernel's order.
    {"sm90/packed_order.cuh",
     {"tilewise::kernels::sm90::reorder_packed_q", "tilewise::kernels::sm90::reorder_packed_scales"}},
};

TEST(NvrtcKernels, EveryKernelHeaderIsChecked) {
  std::set<std::string> offered;
  for (const KernelSource& k : jit::kernel_sources())
    if (k.name.ends_with(".cuh")) offered.insert(k.name);
  std::set<std::string> checked;
  for (const auto& [file, _] : kernel_sources) checked.insert(file);
  EXPECT_EQ(offered, checked) << "a kernel header in kernels/ has no NVRTC check";
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
