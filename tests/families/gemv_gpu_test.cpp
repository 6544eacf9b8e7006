// The decode GEMV on the GPU: the quantizer matches its CPU reference bit for bit, and every weight format,
// activation type and M (a sample of 1..16) matches a reference computed from the weights the kernel computes with
// (the dequantized ones): in fp32 on every output, in fp64 on sampled outputs. N not a multiple of a CTA's columns,
// the configuration grid's corners, K that a format cannot take (a clear error), and the arms through the harness.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>

#include "families/gemv/arms.hpp"
#include "core/numeric.hpp"
#include "device/cuda.hpp"
#include "device/launchers.hpp"
#include "expect_error.hpp"
#include "families/gemv/gemv.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/gemv/quantize.hpp"
#include "families/gemv/view.hpp"
#include "families/gemv_wave_cases.hpp"
#include "families/sm90/packed.hpp"
#include "gpu.hpp"
#include "jit/kernel.hpp"
#include "receipt/derive.hpp"

namespace tilewise::gemv {
namespace {

constexpr Format all_formats[] = {Format::bf16, Format::fp16, Format::q8_0, Format::int4_g32, Format::int4_g128, Format::fp8};

using testkit::download;

// Rounded to 16 bits (the scratch a 16-bit GEMM reads): the reference's values `want` rounded to nearest even,
// stored 16 bytes at a time, 8 bytes past an aligned start, and one element past it (each value on its own).
void expect_16_bit_dequantize(const PackedWeights& d, const std::vector<float>& want, cudaStream_t stream) {
  for (DType dst : {DType::bf16, DType::fp16}) {
    std::vector<uint16_t> rounded(want.size());
    for (size_t i = 0; i < want.size(); ++i)
      rounded[i] = dst == DType::bf16 ? float_to_bf16_bits(want[i]) : float_to_fp16_bits(want[i]);
    device::Buffer out16((want.size() + 4) * 2);
    for (int64_t offset : {0, 4, 1}) {
      SCOPED_TRACE(std::string(to_string(dst)) + " at element " + std::to_string(offset));
      dequantize(d.layout, d.q.get(), d.scales.get(), out16.as<uint16_t>() + offset, dst, stream);
      TW_CUDA(cudaStreamSynchronize(stream));
      EXPECT_EQ(download<uint16_t>(out16.as<uint16_t>() + offset, want.size()), rounded);
    }
  }
}

TEST(GemvGpu, QuantizerMatchesTheCpuReferenceBitForBit) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const int64_t N = 7, K = 256, ld = K + 16;
  for (DType src : {DType::bf16, DType::fp16, DType::fp8_e4m3}) {
    const Problem p = make_problem("q", 1, N, K, src, Layout::TN, 16);
    device::Operands ops(p, 1, 0);
    ops.fill(5, s.get());  // uniform in [-1, 1): B is the source
    s.sync();
    const std::vector<uint8_t> host = download<uint8_t>(ops.set(0).b.get(), size_t(N * ld * element_bytes(src)));
    for (Format f : all_formats) {
      SCOPED_TRACE(std::string(to_string(src)) + " -> " + std::string(to_string(f)));
      const PackedWeights d = quantize(ops.set(0).b.get(), src, N, K, ld, f, s.get());
      const HostPacked h = quantize_cpu(host.data(), src, N, K, ld, f);
      s.sync();
      EXPECT_EQ(download<uint8_t>(d.q.get(), h.q.size()), h.q);
      EXPECT_EQ(download<uint8_t>(d.scales.get(), h.scales.size()), h.scales);
      device::Buffer out(size_t(N * K) * 4);
      dequantize(d.layout, d.q.get(), d.scales.get(), out.as<float>(), s.get());
      s.sync();
      const std::vector<float> got = download<float>(out.get(), size_t(N * K)), want = dequantize_cpu(h);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
      expect_16_bit_dequantize(d, want, s.get());
    }
  }
}

// Weights that do not come back (NaN, Inf, finite ones whose fp16 scale overflows, zero groups): the CPU reference
// handles them as the kernel does (a NaN gives way to a bound, a float-to-integer conversion saturates), so the two
// still agree bit for bit, and `tilewise quantize` on either says the same.
TEST(GemvGpu, QuantizerMatchesTheCpuReferenceOnWeightsThatDoNotComeBack) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const int64_t N = 4, K = 128;
  std::vector<uint16_t> host(size_t(N * K));
  for (size_t i = 0; i < host.size(); ++i) host[i] = float_to_bf16_bits(float(int(i % 13) - 6) / 4.0f);
  host[3] = 0x7FC0;                                    // NaN
  host[40] = 0x7F80, host[41] = 0xFF80;                // +Inf, -Inf
  host[K + 5] = float_to_bf16_bits(3e38f);             // a scale past fp16
  host[K + 70] = float_to_bf16_bits(-2e7f);
  for (int64_t k = 2 * K; k < 2 * K + 32; ++k) host[size_t(k)] = 0;  // a group of zeros
  for (int64_t k = 3 * K; k < 4 * K; ++k) host[size_t(k)] = 0x7FC0;  // a row of NaN
  device::Buffer d_src(host.size() * 2);
  TW_CUDA(cudaMemcpy(d_src.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  for (Format f : all_formats) {
    SCOPED_TRACE(std::string(to_string(f)));
    const PackedWeights d = quantize(d_src.get(), DType::bf16, N, K, K, f, s.get());
    const HostPacked h = quantize_cpu(host.data(), DType::bf16, N, K, K, f);
    s.sync();
    EXPECT_EQ(download<uint8_t>(d.q.get(), h.q.size()), h.q);
    EXPECT_EQ(download<uint8_t>(d.scales.get(), h.scales.size()), h.scales);
    expect_16_bit_dequantize(d, dequantize_cpu(h), s.get());  // NaN rounds to 0x7FFF on both sides
  }
}

// The weights a run computes with: B as the problem stores it (a native format), or B quantized into the
// configuration's format. fp8 weights of an fp8 problem are run both ways: as stored, without a channel scale (what
// tilewise::gemm runs), and quantized with one.
enum class Weights { stored, quantized };

// Runs configuration `c` on `p` and judges it: fp32 reference from the dequantized weights on every output (the
// harness's metric and bound), fp64 on sampled outputs.
void expect_correct(const Config& c, const Problem& p, Weights weights, cudaStream_t stream) {
  SCOPED_TRACE(describe(p) + " | " + to_string(c) + (weights == Weights::stored ? " | B as stored" : " | B quantized"));
  device::Operands ops(p, 1, device::Reference::bytes(p));
  ops.fill(uint64_t(p.M * 1000 + p.N), stream);
  const device::OperandSet& set = ops.set(0);
  Args a{set.a.get(), p.lda, set.b.get(), p.ldb * element_bytes(p.dtype), nullptr, set.c.get(), p.ldc};
  PackedWeights packed;
  device::Buffer w32(size_t(p.N * p.K) * 4);
  const bool native = weights == Weights::stored;
  ASSERT_TRUE(!native || is_native(c.weights, p.dtype));
  if (!native) {
    packed = quantize(set.b.get(), p.dtype, p.N, p.K, p.ldb, c.weights, stream);
    a.w = packed.q.get(), a.w_row_bytes = packed.layout.row_bytes, a.scales = packed.scales.get();
    dequantize(packed.layout, packed.q.get(), packed.scales.get(), w32.as<float>(), stream);
    if (c.engine == Engine::mma_order) {  // the same weights in the sm90 kernel's order
      PackedWeights ordered = sm90::to_kernel_order(packed, stream);
      TW_CUDA(cudaStreamSynchronize(stream));
      packed = std::move(ordered);
      a.w = packed.q.get(), a.scales = packed.scales.get();
    }
  }
  TW_CUDA(cudaStreamSynchronize(stream));
  const device::Reference ref = native ? device::Reference(p, set, stream) : device::Reference(p, set, device::Replaced{w32.as<float>()}, stream);
  EXPECT_TRUE(ref.check_fp64(set).ok);
  const Kernel k(c);
  EXPECT_FALSE(k.usage().spills()) << k.usage().stack_frame_bytes << " bytes of stack";
  k.launch(p, a, stream);
  TW_CUDA(cudaGetLastError());
  const device::OutputError e = ref.compare(set.c.get(), stream);
  // A GEMV has no excuse for more than a quarter of the harness's bound, except that the output is rounded to its
  // type: with a handful of outputs (N = 1) one rounding of up to half an ulp (2^-8 relative in bf16, 2^-11 in fp16)
  // is the whole error, whatever the kernel does.
  const double rounding = output_dtype(p.dtype) == DType::fp16 ? 1.0 / 2048 : 1.0 / 256;
  const double bound = std::max(receipt::correctness_bound(p.dtype) / 4, rounding);
  ASSERT_TRUE(e.rel_err) << e.non_finite << " outputs not finite (never written?)";
  EXPECT_LE(*e.rel_err, bound);

  // fp64 on sampled outputs, including the last row and column.
  const int es = element_bytes(p.dtype);
  const std::vector<uint8_t> x = download<uint8_t>(set.a.get(), size_t(a_bytes(p)));
  const std::vector<uint8_t> out = download<uint8_t>(set.c.get(), size_t(c_bytes(p)));
  std::vector<float> w(size_t(p.N * p.K));
  if (native) {
    const std::vector<uint8_t> b = download<uint8_t>(set.b.get(), size_t(b_bytes(p)));
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t kk = 0; kk < p.K; ++kk) w[size_t(n * p.K + kk)] = float(element_to_double(p.dtype, b.data(), n * p.ldb + kk));
  } else {
    w = download<float>(w32.get(), w.size());
  }
  for (int64_t n : {int64_t(0), p.N / 3, p.N - 1})
    for (int64_t m : {int64_t(0), p.M / 2, p.M - 1}) {
      double exact = 0, magnitude = 0;
      for (int64_t kk = 0; kk < p.K; ++kk) {
        const int64_t xi = p.layout == Layout::TN ? m * p.lda + kk : m + kk * p.lda;
        const double t = element_to_double(p.dtype, x.data(), xi) * w[size_t(n * p.K + kk)];
        exact += t, magnitude += std::fabs(t);
      }
      const double got = element_to_double(output_dtype(p.dtype), out.data(), n * p.ldc + m);
      const double ulp = output_dtype(p.dtype) == DType::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
      EXPECT_LE(std::fabs(got - exact), ulp * std::fabs(exact) + 1e-5 * magnitude) << "m=" << m << " n=" << n;
    }
  (void)es;
}

struct Run {
  Config c;
  Problem p;
  Weights weights;
  // 16-bit weights of the problem's own type are read as stored, every other format quantized, unless `w` says.
  Run(Config c_, Problem p_, std::optional<Weights> w = std::nullopt)
      : c(std::move(c_)), p(std::move(p_)),
        weights(w.value_or(is_native(c.weights, p.dtype) && c.weights != Format::fp8 ? Weights::stored
                                                                                      : Weights::quantized)) {}
};

// Builds every run's kernel in parallel first, then runs and judges each: every configuration run here is inside
// the feasible set.
using Runs = std::vector<Run>;
void expect_all_correct(const Runs& runs, cudaStream_t stream) {
  std::vector<jit::KernelBuild> builds;
  for (const Run& r : runs) builds.push_back(kernel_build(r.c));
  jit::build_all(builds);
  for (const Run& r : runs) {
    EXPECT_EQ(infeasible(r.c, r.p), "") << to_string(r.c);
    expect_correct(r.c, r.p, r.weights, stream);
  }
}

TEST(GemvGpu, EveryFormatActivationAndMMatchesTheDequantizedReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  struct Case {
    DType act;
    std::vector<int> ms;
  };
  const Case cases[] = {{DType::bf16, {1, 2, 3, 5, 8, 9, 13, 16}}, {DType::fp16, {1, 16}}, {DType::fp8_e4m3, {1, 4, 16}}};
  Runs runs;
  for (const Case& cs : cases)
    for (int m : cs.ms)
      for (Format f : all_formats)
        for (Engine e : {Engine::fma, Engine::mma}) {
          if (e == Engine::mma && !mma_infeasible(f, cs.act).empty()) continue;
          // N = 200 is no multiple of a CTA's columns; K = 384 is whole groups of 128.
          const Problem p = make_problem("gemv", m, 200, 384, cs.act, Layout::TN);
          const Config c = default_config(p, f, 132, e);
          runs.emplace_back(c, p);
          if (e == Engine::mma) {
            // Two and four 16-column tiles a warp in the defaults' CTAs of 4 warps (N = 200 leaves the last warp's
            // tiles short; int4's 3 groups of 128 leave one of the 4 K slices empty). expect_all_correct holds each
            // to the feasible set: none is left out.
            for (int cols : {32, 64}) {
              Config wide = c;
              wide.cols = cols, wide.threads = 128, wide.ksplit = 4, wide.unroll = 1;
              runs.emplace_back(wide, p);
              wide.interleave = true;  // the same split with K's steps in turns
              runs.emplace_back(wide, p);
            }
            continue;
          }
          Config ahead = c;  // loads a step ahead, where the registers allow it
          ahead.prefetch = true;
          if (infeasible(ahead, p).empty()) runs.emplace_back(ahead, p);
        }
  expect_all_correct(runs, s.get());
}

// The mma engine's next-step loads (prefetch = 1: int4 g128 and fp8 weights) over slices of several whole steps and a
// tail: K = 2944 is 23 groups of 128, so 4 slices of int4 take 6, 6, 6 and 5 units (24 pieces a row: three steps of
// 8, or two and a tail of 4), fp8's 184 pieces split unevenly too; with K's steps in turns the last turn is short.
// One and two 8-token halves, both x layouts, one to four tiles a warp, y rows; N = 200 leaves the last CTA short.
TEST(GemvGpu, TheMmaEnginesNextStepLoadsKeepEveryPieceOnce) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (Format f : {Format::int4_g128, Format::fp8})
    for (DType act : {DType::bf16, DType::fp16, DType::fp8_e4m3})
      for (int m : {1, 5, 16})
        for (Layout l : {Layout::TN, Layout::NN}) {
          // M-major x is 16-bit, read 8 tokens of one k at a time: M = 16 fills both halves' columns (lda 16).
          if (!mma_infeasible(f, act).empty() || (l == Layout::NN && (act == DType::fp8_e4m3 || m != 16))) continue;
          const Problem p = make_problem("ahead", m, 200, 2944, act, l);
          Config c = default_config(p, f, 132, Engine::mma);
          c.prefetch = true;
          runs.emplace_back(c, p);
          for (int cols : {16, 32, 64}) {
            Config split = c;
            split.cols = cols, split.threads = 128, split.ksplit = 4, split.unroll = cols == 64 ? 1 : 2;
            runs.emplace_back(split, p);
            split.interleave = true;
            runs.emplace_back(split, p);
          }
        }
  expect_all_correct(runs, s.get());
}

// The mma-order engine (int4 in the sm90 kernel's order, kernels/gemv_mma_order.cuh): both formats and 16-bit x
// types, M = 1, 3 and 8, one, two and four quarters of a block a CTA, K split 1 to 8 ways into slices of unequal
// length and empty ones (K = 384 is three groups of 128 over four slices, K = 2944 twenty-three), one to eight blocks
// a step. Then as an arm through the harness in both orientations (nn.Linear's stores y rows), against its own
// dequantized weights.
TEST(GemvGpu, TheMmaOrderEngineMatchesTheDequantizedReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (Format f : {Format::int4_g128, Format::int4_g32})
    for (DType act : {DType::bf16, DType::fp16})
      for (int m : {1, 3, 8})
        for (int64_t k : {384, 2944}) {
          const Problem p = make_problem("order", m, 192, k, act, Layout::TN);
          const Config c = default_config(p, f, 132, Engine::mma_order);
          runs.emplace_back(c, p);
          for (const auto& [threads, ksplit, unroll] : {std::tuple{256, 4, 2}, {256, 2, 8}, {512, 8, 2}, {128, 1, 4}}) {
            Config o = c;
            o.threads = threads, o.ksplit = ksplit, o.unroll = unroll;
            runs.emplace_back(o, p);
          }
        }
  expect_all_correct(runs, s.get());

  int l2 = 0;
  TW_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  for (const Problem& q : {make_problem("arm", 1, 4096, 2048, DType::bf16, Layout::TN),
                           make_problem("arm_lin", 4096, 5, 2048, DType::bf16, Layout::TN)}) {
    SCOPED_TRACE(describe(q));
    const Orientation orientation = q.M > 16 ? Orientation::linear : Orientation::column_major;
    device::Operands ops(q, device::rotation_sets(q, true, l2), device::Reference::bytes(q));
    ops.fill(5, s.get());
    const device::Reference ref(q, ops.set(0), s.get());
    const families::Workbench wb{q, ops, ref, s.get(), 0.5, 1, 2, true, l2, orientation};
    auto arm = gemv::make_arm("gemv:int4@engine=mma-order");
    arm->prepare(wb);
    EXPECT_EQ(arm->config().at("engine"), "mma-order");
    const device::Reference own(q, ops.set(0), arm->judged_weights(), s.get());
    const families::Workbench judged{q, ops, own, s.get(), 0.5, 1, 2, true, l2, orientation};
    const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
    const device::OutputError e = families::checked_run(judged, launch);
    ASSERT_TRUE(e.rel_err) << e.non_finite << " outputs not finite (never written?)";
    EXPECT_LE(*e.rel_err, receipt::correctness_bound(DType::bf16) / 4);
  }
}

// x M-major (the NN layout) on every engine and format that takes it (the mma and bulk engines every format with
// 16-bit x, the fma engine's own kernel the problem's 16-bit weights), M in one and both token halves (M = 8 and 16
// tight, and M = 5 with a padded column of 24, which loads past token M read), N short of a CTA's columns, with the
// mma engine's wide tiles and the K slices of unequal length the transpose's lanes must agree on (K = 5120 over 8
// slices: 40 groups of 128, 80 pieces a lane quarter). Then an fp8 problem's own B read as it is, with no channel
// scale (tilewise::gemm's fp8 GEMV), on every engine.
// nn.Linear's orientation (TN, M = features, N = tokens): each engine's kernel built for y rows writes y[T, F]
// row-major, which is C column-major [F x T], on a padded ldc and with features not a multiple of any tile; judged
// against the problem's own reference on every output. Small enough for the sanitizers.
TEST(GemvGpu, EveryEngineStoresYRowsInNnLinearsOrientation) {
  TW_REQUIRE_GPU();
  device::Stream s;
  int ran = 0;
  for (DType d : {DType::bf16, DType::fp16, DType::fp8_e4m3})
    for (int64_t t : {1, 5, 16})
      for (Engine e : {Engine::fma, Engine::mma, Engine::bulk}) {
        Problem p = make_problem("lin", 1000, t, 1024, d, Layout::TN);
        p.ldc += 8;
        const std::optional<View> v = view_of(p);
        ASSERT_TRUE(v && v->tokens_as_n);
        Config c;
        try {
          c = default_config(v->problem, native_format(d), 132, e);
        } catch (const Unsupported&) {
          continue;  // an engine that does not take this type
        }
        SCOPED_TRACE(describe(p) + " | " + to_string(c));
        device::Operands ops(p, 1, device::Reference::bytes(p));
        ops.fill(uint64_t(t * 7 + int(e)), s.get());
        const device::Reference ref(p, ops.set(0), s.get());
        ops.poison_output(0, s.get());
        const Kernel k(c, true);
        k.launch(v->problem, view_args(*v, v->problem, ops.set(0).a.get(), ops.set(0).b.get(), ops.set(0).c.get()),
                 s.get());
        TW_CUDA(cudaGetLastError());
        const device::OutputError err = ref.compare(ops.set(0).c.get(), s.get());
        ASSERT_TRUE(err.rel_err) << err.non_finite << " outputs not finite (never written?)";
        EXPECT_LE(*err.rel_err, receipt::correctness_bound(d) / 4);
        ++ran;
      }
  EXPECT_GE(ran, 12);
}

TEST(GemvGpu, MMajorXAndAnFp8ProblemsOwnWeightsMatchTheReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (DType act : {DType::bf16, DType::fp16})
    for (auto [m, lda] : {std::pair{8, 8}, std::pair{5, 24}, std::pair{16, 16}})
      for (Format f : all_formats)
        for (Engine e : {Engine::fma, Engine::mma, Engine::bulk}) {
          if ((f == Format::bf16 || f == Format::fp16) && !is_native(f, act)) continue;  // the other type's weights
          if (e != Engine::fma && !mma_infeasible(f, act).empty()) continue;
          if (e == Engine::fma && !is_native(f, act)) continue;  // its NN form: B as stored
          Problem p = make_problem("nn", m, 200, 5120, act, Layout::NN);
          p.lda = lda;
          const Config c = default_config(p, f, 132, e);
          EXPECT_EQ(c.layout, Layout::NN);
          runs.emplace_back(c, p);
          if (e == Engine::mma && m == 16) {
            for (int cols : {32, 64}) {
              Config wide = c;
              wide.cols = cols, wide.threads = 128, wide.ksplit = 4, wide.unroll = 1;
              runs.emplace_back(wide, p);
            }
            // 5-warp CTAs (K = 5120's 80 pieces a lane quarter unevenly over them), in slices and in turns.
            for (bool turns : {false, true}) {
              Config five = c;
              five.cols = 32, five.threads = 160, five.ksplit = 5, five.unroll = 2, five.interleave = turns;
              runs.emplace_back(five, p);
            }
          }
        }
  // The 16-bit two-tile defaults on M-major x at M = 9, 12 and 16 (4 warps in slices, then 5 in turns), on a short
  // N and K = 1408.
  for (auto [act, f] : {std::pair{DType::bf16, Format::bf16}, std::pair{DType::fp16, Format::fp16}})
    for (int m : {9, 12, 16}) {
      Problem wide = make_problem("w", m, 12288, 4096, act, Layout::NN);
      Problem p = make_problem("two-tile-nn", m, 200, 1408, act, Layout::NN);
      wide.lda = p.lda = (m + 7) / 8 * 8;  // x's columns 16-byte aligned
      runs.emplace_back(default_config(wide, f), p);
    }
  for (int m : {1, 16})
    for (Engine e : {Engine::fma, Engine::mma, Engine::bulk}) {
      const Problem p = make_problem("fp8", m, 200, 5120, DType::fp8_e4m3, Layout::TN);
      runs.emplace_back(default_config(p, Format::fp8, 132, e), p, Weights::stored);
    }
  expect_all_correct(runs, s.get());
}

// default_config's wave rules count CTAs an SM: for 16-bit and Q8_0 weights at M > 8, 2 for the setting every format
// takes and 3 for two tiles a warp; for int4 at M <= 8, 16 warps an SM (4 CTAs of 128, 2 of 256) for one tile a CTA
// and 3 for two tiles a warp. The registers NVRTC gives those kernels must leave exactly that many resident, in both
// orientations.
TEST(GemvGpu, TheWaveRuleCountsTheCtasAnSmTheKernelsHold) {
  TW_REQUIRE_GPU();
  for (const WaveCase& w : wave_rule_cases())  // the rule's own choices: GemvConfig.WaveRuleCasesAreTheRulesChoices
    for (bool y_rows : {false, true}) {  // nn.Linear's y row-major holds as many as C column-major
      const jit::LoadedKernel k(jit::build(kernel_build(w.config, y_rows)));
      EXPECT_EQ(k.max_active_blocks_per_sm(block_threads(w.config), 0), w.per_sm)
          << to_string(w.config) << (y_rows ? " y rows" : "");
    }
}

// A persistent grid is the CTAs the kernel's registers let the GPU hold at once, not a thread count's worth: two
// 16-bit tiles a warp at M = 16 hold 3 CTAs of 128 threads an SM (the wave rule's count), where 2048 threads would
// have made 16.
TEST(GemvGpu, APersistentGridIsWhatFitsTheGpuAtOnce) {
  TW_REQUIRE_GPU();
  const Problem p = make_problem("many", 16, 200000, 4096, DType::bf16, Layout::TN);
  Config c = default_config(make_problem("w", 16, 12288, 4096, DType::bf16, Layout::TN), Format::bf16);
  ASSERT_EQ(c.cols, 32);
  c.persistent = true;
  const Kernel k(c);
  EXPECT_EQ(k.grid(p), 3 * device::sm_count());
  c.persistent = false;
  EXPECT_EQ(Kernel(c).grid(p), (p.N + cta_cols(c) - 1) / cta_cols(c));
}

// The mma-order engine stages x whole, so what fits an SM depends on K: 8 tokens of K = 8192 are 128 KB of x, one CTA
// an SM; of K = 1024, 16 KB.
TEST(GemvGpu, TheMmaOrderPersistentGridCountsXInSharedMemory) {
  TW_REQUIRE_GPU();
  const Problem wide_k = make_problem("wide_k", 8, 65536, 8192, DType::bf16, Layout::TN);
  Config c = default_config(wide_k, Format::int4_g128, 132, Engine::mma_order);
  c.threads = 256, c.ksplit = 8, c.persistent = true;
  ASSERT_EQ(infeasible(c, wide_k), "");
  const Kernel k(c);
  EXPECT_EQ(k.grid(wide_k), device::sm_count());
  const Problem narrow_k = make_problem("narrow_k", 8, 65536, 1024, DType::bf16, Layout::TN);
  EXPECT_GT(k.grid(narrow_k), device::sm_count());
  EXPECT_EQ(k.grid(wide_k), device::sm_count());  // the kept count follows K
}

// Persistent runs judged as every run is, each grid also smaller than its tiles, so that its CTAs loop.
void expect_correct_and_looping(const Runs& runs, cudaStream_t stream) {
  expect_all_correct(runs, stream);  // builds the kernels in parallel
  for (const Run& r : runs)
    EXPECT_LT(Kernel(r.c).grid(r.p), r.p.N / cta_cols(r.c)) << to_string(r.c) << ": the grid does not loop";
}

// A persistent grid smaller than the tiles: each CTA runs several tiles on the x it staged once.
TEST(GemvGpu, TheMmaOrderPersistentGridMatchesTheDequantizedReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (Format f : {Format::int4_g128, Format::int4_g32})
    for (int m : {1, 5, 8})
      for (int64_t k : {384, 2944}) {
        const Problem p = make_problem("order_persistent", m, 16384, k, DType::bf16, Layout::TN);
        for (const auto& [threads, ksplit, unroll] : {std::tuple{256, 8, 2}, {512, 8, 2}, {512, 16, 2}, {256, 4, 4}}) {
          Config c = default_config(p, f, 132, Engine::mma_order);
          c.threads = threads, c.ksplit = ksplit, c.unroll = unroll, c.persistent = true;
          runs.emplace_back(c, p);
        }
      }
  expect_correct_and_looping(runs, s.get());
}

// The same loop small enough for racecheck and synccheck (scripts/device-round.sh order-persistent): 8 tokens, one
// CTA an SM at 512 threads and two or three at 256, each CTA over two or more tiles.
TEST(GemvGpu, TheMmaOrderPersistentSanitizedSet) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (const auto& [n, threads, ksplit] : {std::tuple{4096, 512, 16}, {8192, 256, 8}}) {
    const Problem p = make_problem("order_persistent", 8, n, 384, DType::bf16, Layout::TN);
    Config c = default_config(p, Format::int4_g128, 132, Engine::mma_order);
    c.threads = threads, c.ksplit = ksplit, c.unroll = 2, c.persistent = true;
    runs.emplace_back(c, p);
  }
  expect_correct_and_looping(runs, s.get());
}

TEST(GemvGpu, ConfigurationCornersAndEdgeShapes) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  const Problem base = make_problem("gemv", 3, 1000, 1024, DType::bf16, Layout::TN);
  for (auto [f, engine] : {std::pair{Format::bf16, Engine::fma}, std::pair{Format::bf16, Engine::mma},
                           std::pair{Format::q8_0, Engine::fma}, std::pair{Format::q8_0, Engine::mma},
                           std::pair{Format::int4_g128, Engine::fma}, std::pair{Format::int4_g128, Engine::mma},
                           std::pair{Format::fp8, Engine::mma}}) {
    Config c = default_config(base, f, 132, engine);
    for (int ksplit : {1, 2, 8}) {
      c.ksplit = ksplit;
      runs.emplace_back(c, base);
    }
    // K slices that are not a power of two: 3 and 5 warps, K = 1024 not a multiple of either (uneven slices).
    for (auto [threads, ksplit] : {std::pair{96, 3}, std::pair{160, 5}}) {
      Config v = c;
      v.threads = threads, v.ksplit = ksplit;
      runs.emplace_back(v, base);
    }
    // K's steps taken in turns (the mma engine): 2 and 8 warps, 8 on a looping grid, and 5, which K = 1024's steps
    // do not divide, so the warps take unequal numbers of them and only the row's last step is short.
    if (engine == Engine::mma)
      for (auto [threads, ksplit, looping] :
           {std::tuple{256, 2, false}, std::tuple{256, 8, true}, std::tuple{160, 5, false}}) {
        Config v = c;
        v.threads = threads, v.ksplit = ksplit, v.persistent = looping, v.interleave = true;
        runs.emplace_back(v, base);
      }
    c.ksplit = 1;
    // The grid's corners inside the feasible set: one chunk in flight, the most columns with one chunk each, and the
    // most register pressure the feasible set admits at this thread count (cols 4 x unroll 8 is past it at M = 3).
    for (int cols : engine == Engine::mma ? std::vector<int>{16, 32, 64} : std::vector<int>{1, 4}) {
      Config v = c;
      v.cols = cols, v.unroll = 1;
      runs.emplace_back(v, base);
    }
    std::optional<Config> heaviest;
    for (const Config& v : feasible_set(base, f))
      if (v.engine == c.engine && v.threads == c.threads && v.ksplit == 1 && v.hint == c.hint && !v.persistent &&
          (!heaviest || register_estimate(v) > register_estimate(*heaviest)))
        heaviest = v;
    ASSERT_TRUE(heaviest);
    runs.emplace_back(*heaviest, base);
    for (Hint h : {Hint::none, Hint::nc, Hint::evict_first, Hint::prefetch_256}) {
      Config v = c;
      v.hint = h;
      runs.emplace_back(v, base);
    }
    Config persistent = c;
    persistent.persistent = true;
    runs.emplace_back(persistent, make_problem("many", 3, 200000, 128, DType::bf16, Layout::TN));  // loops over blocks
    // PDL launches compute the same (the chain that fails without the wait is AProgrammaticLaunchWaitsForTheKernelBeforeIt)
    for (Config v : {c, persistent}) {
      v.pdl = true;
      runs.emplace_back(v, v.persistent ? make_problem("many", 3, 200000, 128, DType::bf16, Layout::TN) : base);
    }
    if (engine != Engine::fma) continue;
    // Loads a step ahead: slices of several steps (ksplit 1), of one step (ksplit 8), one chunk in flight (unroll
    // 1), and a persistent grid, whose next block starts its own prefetch.
    Config ahead = c;
    ahead.prefetch = true;
    for (auto [ksplit, unroll, looping] : {std::tuple{1, c.unroll, false}, std::tuple{8, c.unroll, false},
                                           std::tuple{1, 1, false}, std::tuple{1, c.unroll, true}}) {
      Config v = ahead;
      v.ksplit = ksplit, v.unroll = unroll, v.persistent = looping;
      runs.emplace_back(v, looping ? make_problem("many", 3, 200000, 128, DType::bf16, Layout::TN) : base);
    }
  }
  // The 16-bit two-tile defaults at M > 8 (4 warps in slices at M = 9, 5 warps with K's steps in turns at M = 12, 4
  // in turns at 16) on a short N and K = 1408, 22 steps a row, which neither 5 nor 4 warps share evenly.
  for (auto [act, f] : {std::pair{DType::bf16, Format::bf16}, std::pair{DType::fp16, Format::fp16}})
    for (int m : {9, 12, 16}) {
      const Config c = default_config(make_problem("w", m, 12288, 4096, act, Layout::TN), f);
      runs.emplace_back(c, make_problem("two-tile", m, 200, 1408, act, Layout::TN));
    }
  // Shapes: one column; fewer columns than a CTA has; K of one chunk (fewer chunks than lanes); a padded x and W.
  // Exactly one pair is a shape its format cannot take (int4 g128 at K = 96, not whole groups of 128): it is skipped
  // by name, and must be refused with Unsupported naming K and the group, never run on a truncated K. Every other
  // pair must have a default and run.
  int refused = 0;
  for (auto [m, n, k, pad] : {std::tuple{1, 1, 128, 0}, std::tuple{16, 13, 128, 0}, std::tuple{2, 333, 32 * 3, 0},
                              std::tuple{5, 77, 1024, 8}}) {
    for (Format f : all_formats) {
      const Problem p = make_problem("edge", m, n, k, DType::bf16, Layout::TN, pad);
      SCOPED_TRACE(describe(p) + " " + std::string(to_string(f)));
      if (f == Format::int4_g128 && k % 128 != 0) {
        EXPECT_THROW(default_config(p, f), Unsupported);
        const std::string e = testkit::error_of([&] { default_config(p, f); });
        EXPECT_TRUE(testkit::Contains(e, fmt::format("K = {}", k)));
        EXPECT_TRUE(testkit::Contains(e, "group of 128"));
        Config forced = default_config(make_problem("edge", m, n, 128, DType::bf16, Layout::TN, pad), f);
        EXPECT_TRUE(testkit::Contains(infeasible(forced, p), "group of 128"));
        ++refused;
        continue;
      }
      const Config c = default_config(p, f);  // throws (and fails the test) if a shape it must take has no default
      EXPECT_EQ(infeasible(c, p), "");
      runs.emplace_back(c, p);
    }
  }
  EXPECT_EQ(refused, 1);
  expect_all_correct(runs, s.get());
}

// The bulk engine on what its schedule has edges at: a last slice of each row shorter than a stage (K = 5120 leaves
// 8 units for int4 and 16 for fp8; K = 384 one partial stage), a last tile of fewer than 16 rows (N = 200, 13),
// one column, more tiles than CTAs (each CTA loops, the ring wrapping many times), rings of 2 to 8 stages, 1 to 4
// units a warp, 4 and 16 consumer warps, the evict-first copies, and PDL.
TEST(GemvGpu, TheBulkEngineMatchesTheReferenceAtItsScheduleEdges) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  struct Case {
    DType act;
    std::vector<int> ms;
  };
  const Case cases[] = {{DType::bf16, {1, 3, 9, 16}}, {DType::fp16, {1, 16}}, {DType::fp8_e4m3, {1, 16}}};
  for (const Case& cs : cases)
    for (int m : cs.ms)
      for (Format f : all_formats) {
        if (!mma_infeasible(f, cs.act).empty()) continue;
        const Problem p = make_problem("bulk", m, 200, 5120, cs.act, Layout::TN);
        const Config c = default_config(p, f, 132, Engine::bulk);  // throws (and fails) if the default cannot run
        runs.emplace_back(c, p);
        // The variants where feasible (M = 16 int4 takes 2 units a warp at most, a grouped format needs 8 units a
        // stage).
        std::vector<Config> variants(4, c);
        variants[0].stages = 2, variants[0].unroll = 4;  // a ring of two
        variants[1].stages = 8, variants[1].unroll = 1;  // thin slices, a ring of eight
        variants[2].threads = 128, variants[2].ksplit = 4, variants[2].unroll = 2;
        variants[2].hint = Hint::evict_first, variants[2].pdl = true;
        variants[3].threads = 512, variants[3].ksplit = 16, variants[3].unroll = 1, variants[3].stages = 3;
        for (const Config& v : variants)
          if (infeasible(v, p).empty()) runs.emplace_back(v, p);
      }
  EXPECT_GE(runs.size(), 60u);
  const Problem bf16_shapes[] = {make_problem("one", 1, 1, 1024, DType::bf16, Layout::TN),
                                 make_problem("thin", 2, 13, 384, DType::bf16, Layout::TN),
                                 make_problem("loops", 1, 12288, 4096, DType::bf16, Layout::TN),
                                 make_problem("padded", 4, 77, 1024, DType::bf16, Layout::TN, 8)};
  for (const Problem& p : bf16_shapes)
    for (Format f : {Format::bf16, Format::q8_0, Format::int4_g128, Format::fp8}) {
      try {
        runs.emplace_back(default_config(p, f, 132, Engine::bulk), p);
      } catch (const Unsupported& e) {  // only K's rules may refuse these shapes
        EXPECT_TRUE(testkit::Contains(e.what(), fmt::format("K = {} is not a multiple of", p.K))) << e.what();
      }
    }
  expect_all_correct(runs, s.get());
}

// A handful of the bulk engine's schedules, small enough for compute-sanitizer (memcheck, racecheck): a grouped and
// an ungrouped format, both halves of x, a last partial stage and tile, a CTA that loops over tiles with its ring
// wrapping, PDL.
TEST(GemvGpu, BulkSanitizedSet) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  const Problem partial = make_problem("bulk", 1, 200, 5120, DType::bf16, Layout::TN);
  const Problem two_halves = make_problem("bulk", 16, 40, 2048, DType::bf16, Layout::TN);
  for (Format f : {Format::bf16, Format::q8_0, Format::int4_g128})
    for (const Problem& p : {partial, two_halves}) runs.emplace_back(default_config(p, f, 132, Engine::bulk), p);
  Config looping = default_config(partial, Format::bf16, 132, Engine::bulk);
  looping.stages = 2, looping.unroll = 1, looping.pdl = true;
  runs.emplace_back(looping, make_problem("loops", 1, 4096, 1024, DType::bf16, Layout::TN));  // 256 tiles
  expect_all_correct(runs, s.get());
}

// The mma engine's tiles (one, two and four 16-column tiles a warp), small enough for compute-sanitizer's racecheck:
// a last tile short of its warp's columns (N = 200), K slices of unequal length (K = 1408: 11 groups of 128 over 4
// warps), both token halves, and a persistent grid that reuses its shared memory block after block, with PDL.
TEST(GemvGpu, MmaTilesSanitizedSet) {
  TW_REQUIRE_GPU();
  device::Stream s;
  Runs runs;
  for (Format f : {Format::bf16, Format::q8_0, Format::int4_g128, Format::fp8})
    for (int m : {1, 16})
      for (int cols : {16, 32, 64}) {
        const Problem p = make_problem("wide", m, 200, 1408, DType::bf16, Layout::TN);
        Config c = default_config(p, f, 132, Engine::mma);
        c.cols = cols, c.threads = 128, c.ksplit = 4, c.unroll = 1;
        runs.emplace_back(c, p);
        c.interleave = true;  // K's steps in turns
        runs.emplace_back(c, p);
      }
  Config looping = default_config(make_problem("wide", 16, 200, 1408, DType::bf16, Layout::TN), Format::bf16, 132,
                                  Engine::mma);
  looping.cols = 32, looping.threads = 128, looping.ksplit = 4, looping.unroll = 2, looping.persistent = true;
  looping.pdl = true;
  runs.emplace_back(looping, make_problem("loops", 16, 200000, 128, DType::bf16, Layout::TN));
  expect_all_correct(runs, s.get());
}

// A PDL launch may start while the kernel before it runs; it must wait for it before it reads x or writes the
// output. Only a kernel that lets its dependents launch early overlaps them, so the test chains two PDL GEMVs as a
// decode step chains layers: the first writes the second's x (NaN until then), and the second, launched right
// behind it, must read what the first wrote. Once on a stream, once replayed from a captured graph (the harness
// times graphs).
TEST(GemvGpu, AProgrammaticLaunchWaitsForTheKernelBeforeIt) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const Problem first = make_problem("layer1", 1, 4096, 8192, DType::bf16, Layout::TN);
  const Problem second = make_problem("layer2", 1, 12288, 4096, DType::bf16, Layout::TN);  // K = first's N
  device::Operands ops1(first, 1, device::Reference::bytes(first)), ops2(second, 1, device::Reference::bytes(second));
  ops1.fill(7, s.get());
  ops2.fill(8, s.get());
  const device::OperandSet &s1 = ops1.set(0), &s2 = ops2.set(0);
  for (Engine engine : {Engine::fma, Engine::mma, Engine::bulk}) {
    Config c1 = default_config(first, Format::bf16, 132, engine), c2 = default_config(second, Format::bf16, 132, engine);
    c1.pdl = c2.pdl = true;
    SCOPED_TRACE(to_string(c2));
    const Kernel k1(c1), k2(c2);
    // The first layer's output is the second's x: N values, one token (ldc 1).
    const Args a1{s1.a.get(), first.lda, s1.b.get(), first.ldb * 2, nullptr, s2.a.get(), 1};
    const Args a2{s2.a.get(), second.lda, s2.b.get(), second.ldb * 2, nullptr, s2.c.get(), second.ldc};
    auto step = [&](cudaStream_t st) {
      TW_CUDA(cudaMemsetAsync(s2.a.get(), 0xFF, size_t(second.K) * 2, st));  // x2 NaN until the first layer writes it
      k1.launch(first, a1, st);
      k2.launch(second, a2, st);
    };
    for (bool graph : {false, true}) {
      SCOPED_TRACE(graph ? "graph replay" : "stream");
      ops2.poison_output(0, s.get());
      if (graph) {
        cudaGraph_t g = nullptr;
        cudaGraphExec_t exec = nullptr;
        TW_CUDA(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal));
        step(s.get());
        TW_CUDA(cudaStreamEndCapture(s.get(), &g));
        TW_CUDA(cudaGraphInstantiate(&exec, g, 0));
        TW_CUDA(cudaGraphLaunch(exec, s.get()));
        TW_CUDA(cudaStreamSynchronize(s.get()));
        TW_CUDA(cudaGraphExecDestroy(exec));
        TW_CUDA(cudaGraphDestroy(g));
      } else {
        step(s.get());
      }
      TW_CUDA(cudaGetLastError());
      // The reference reads x2 as the first layer left it: a second layer that read x2 early computed on NaN.
      const device::Reference ref(second, s2, s.get());
      const device::OutputError e = ref.compare(s2.c.get(), s.get());
      ASSERT_TRUE(e.rel_err) << e.non_finite << " outputs not finite: x read before the first layer wrote it?";
      EXPECT_LE(*e.rel_err, receipt::correctness_bound(second.dtype) / 4);
    }
  }
}

TEST(GemvGpu, AShapeTheFormatCannotTakeIsAClearError) {
  TW_REQUIRE_GPU();
  // Two rules, each isolated by its own K. K = 4112 is whole 16-byte Q8_0 chunks (a multiple of 16) but not whole
  // Q8_0 groups (not a multiple of 32); K = 4104 is not even whole chunks. Each is declined naming K, rather than
  // truncated: the configuration names the rule K breaks, the packed layout the one multiple both rules need (so the
  // K it suggests is one the format takes), and a kernel built for a good K refuses both.
  const Problem group_k = make_problem("k", 1, 64, 4112, DType::bf16, Layout::TN);
  const Problem chunk_k = make_problem("k", 1, 64, 4104, DType::bf16, Layout::TN);
  const std::pair<Problem, std::string> cases[] = {{group_k, "group of 32"}, {chunk_k, "multiple of 16"}};
  for (const auto& [p, rule] : cases) {
    SCOPED_TRACE(describe(p));
    const std::string k_text = fmt::format("K = {}", p.K);
    EXPECT_THROW(default_config(p, Format::q8_0), Unsupported);
    const std::string e = testkit::error_of([&] { default_config(p, Format::q8_0); });
    EXPECT_TRUE(testkit::Contains(e, k_text));
    EXPECT_TRUE(testkit::Contains(e, rule));
    const std::string layout_error = testkit::error_of([&] { packed_layout(Format::q8_0, 64, p.K); });
    EXPECT_TRUE(testkit::Contains(layout_error, k_text));
    EXPECT_TRUE(testkit::Contains(layout_error, "multiple of 32"));
  }
  EXPECT_FALSE(testkit::Contains(testkit::error_of([&] { default_config(group_k, Format::q8_0); }), "16-byte chunk"));
  const Config c = default_config(make_problem("k", 1, 64, 4096, DType::bf16, Layout::TN), Format::q8_0);
  const Kernel k(c);
  for (const Problem& p : {group_k, chunk_k}) {
    EXPECT_THROW(k.launch(p, Args{}, nullptr), Unsupported);
    EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { k.launch(p, Args{}, nullptr); }), fmt::format("K = {}", p.K)));
  }
}

// The arms as the runner drives them: a quantized arm is correct against its own dequantized weights (B's, or A's
// in nn.Linear's orientation, tokens as N), reports its weight bytes, and a cold rotation of its own copies covers
// 4x the L2.
TEST(GemvGpu, ArmsThroughTheHarness) {
  TW_REQUIRE_GPU();
  device::Stream s;
  int l2 = 0;
  TW_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  for (DType d : {DType::bf16, DType::fp8_e4m3}) {
    const Problem p = make_problem("arm", 1, 12288, 4096, d, Layout::TN);
    const Problem lin = make_problem("arm_lin", 12288, 3, 4096, d, Layout::TN);
    for (const Problem& q : {p, lin}) {
      const Orientation orientation = q.M > 16 ? Orientation::linear : Orientation::column_major;
      device::Operands ops(q, device::rotation_sets(q, true, l2), device::Reference::bytes(q));
      ops.fill(3, s.get());
      const device::Reference ref(q, ops.set(0), s.get());
      const families::Workbench wb{q, ops, ref, s.get(), 0.5, 1, 2, true, l2, orientation};
      for (const std::string& name : gemv::arm_names()) {
        SCOPED_TRACE(describe(q) + " " + name);
        auto arm = gemv::make_arm(name);
        ASSERT_TRUE(arm);
        arm->prepare(wb);
        std::unique_ptr<device::Reference> own;
        if (const device::Replaced w = arm->judged_weights(); w.rows) {
          EXPECT_EQ(w.a, orientation == Orientation::linear);
          own = std::make_unique<device::Reference>(q, ops.set(0), w, s.get());
          EXPECT_TRUE(own->check_fp64(ops.set(0)).ok);
          EXPECT_NE(arm->reference_name(), "problem");
          EXPECT_GE(arm->working_set_bytes(), device::cold_working_set_bytes(l2));
          EXPECT_GE(arm->rotation_sets(), ops.count());
        } else {
          EXPECT_EQ(arm->reference_name(), "problem");
        }
        EXPECT_GT(arm->weight_bytes(), 0);
        const families::Workbench judged{q, ops, own ? *own : ref, s.get(), 0.5, 1, 2, true, l2, orientation};
        const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
        const device::OutputError e = families::checked_run(judged, launch);
        EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(d)));
        const int sets = arm->rotation_sets() ? arm->rotation_sets() : ops.count();
        for (int i = 0; i < sets; ++i) launch(i, s.get());  // every rotation set launches
        s.sync();
        EXPECT_EQ(arm->config().at("spill_bytes"), 0);
        EXPECT_EQ(arm->config().at("tokens_as_n"), orientation == Orientation::linear);
      }
    }
    device::Operands ops(p, device::rotation_sets(p, true, l2), device::Reference::bytes(p));
    ops.fill(3, s.get());
    const device::Reference ref(p, ops.set(0), s.get());
    const families::Workbench wb{p, ops, ref, s.get(), 0.5, 1, 2, true, l2};
    // An engine named after '@' is the engine the default is made for; the other fields lie over that default.
    auto fma = gemv::make_arm("gemv:fp8@engine=fma;unroll=2");
    fma->prepare(wb);
    EXPECT_EQ(fma->config().at("engine"), "fma");
    EXPECT_EQ(fma->config().at("unroll"), 2);
    EXPECT_EQ(fma->config().at("cols"), 2);
  }
  EXPECT_EQ(gemv::make_arm("gemv:int5"), nullptr);
}

}  // namespace
}  // namespace tilewise::gemv
