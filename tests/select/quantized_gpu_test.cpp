// nn.Linear on packed weights through the public API (include/tilewise/quantized.hpp): the GPU quantizer gives the CPU
// reference's bits, linear is correct against the dequantized weights at every token count the gemv serves, in both
// activation types, on two streams at once; more tokens are Unsupported and bad pointers an Error before any launch;
// the tensor-core copy serves every token count alone; past 16 tokens, every token count on one stream shares that
// stream's stream-K scratch and the loaded kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/numeric.hpp"
#include "device/cuda.hpp"
#include "device/operands.hpp"
#include "device/reference.hpp"
#include "expect_error.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"
#include "select/api.hpp"
#include "select/context_state.hpp"
#include "select/packed_crossover.hpp"
#include "varied_scales.hpp"
#include "tilewise/tilewise.hpp"

namespace tilewise {
namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::q8_0, WeightFormat::int4_g32, WeightFormat::int4_g128,
                                     WeightFormat::fp8};

template <typename T>
std::vector<T> to_host(const void* device, size_t count) {
  std::vector<T> out(count);
  TW_CUDA(cudaMemcpy(out.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

double as_double(DType d, uint16_t bits) { return d == DType::bf16 ? bf16_to_double(bits) : fp16_to_double(bits); }

// ||y - x W^T|| / ||x W^T|| with W the dequantized weights, in double on the host.
double relative_error(DType act, const std::vector<uint16_t>& x, const std::vector<float>& w,
                      const std::vector<uint16_t>& y, int64_t tokens, int64_t F, int64_t K) {
  double err = 0, norm = 0;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t f = 0; f < F; ++f) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += as_double(act, x[size_t(t * K + k)]) * double(w[size_t(f * K + k)]);
      const double d = as_double(act, y[size_t(t * F + f)]) - ref;
      err += d * d, norm += ref * ref;
    }
  return std::sqrt(err / norm);
}

struct Packed {
  PackedShape shape;
  device::Buffer q, scales;
  PackedWeights view() const { return {shape, q.get(), scales.get()}; }
};

// W[F][K] of the problem's A, packed on the GPU.
Packed pack(const device::OperandSet& o, DType d, WeightFormat f, int64_t F, int64_t K, cudaStream_t s) {
  Packed p{packed_shape(f, F, K), {}, {}};
  p.q = device::Buffer(size_t(p.shape.q_bytes()));
  p.scales = device::Buffer(size_t(p.shape.scale_bytes));
  quantize(o.a.get(), d, K, p.shape, p.q.get(), p.scales.get(), s);
  return p;
}

// An nn.Linear problem of `tokens` on W[F][K] (scales varied, so that a misplaced one shows), W packed in rows of K
// and in the tensor-core order.
struct BothOrders {
  BothOrders(DType act, WeightFormat f, int64_t F, int64_t tokens, int64_t K, uint64_t seed, cudaStream_t s)
      : act(act), tokens(tokens), ops(make_problem("lin", F, tokens, K, act, Layout::TN), 1, 0) {  // A: W, B: x
    ops.fill(seed, s);
    ops.poison_outputs(s);
    testkit::vary_scales(ops.set(0).a.get(), act, F, K, K, s);
    rows = pack(ops.set(0), act, f, F, K, s);
    q_mma = device::Buffer(size_t(rows.shape.q_bytes()));
    scales_mma = device::Buffer(size_t(rows.shape.scale_bytes));
    pack_for_tensor_cores(rows.view(), q_mma.get(), scales_mma.get(), s);
  }
  PackedWeights both() const { return {rows.shape, rows.q.get(), rows.scales.get(), q_mma.get(), scales_mma.get()}; }
  PackedWeights copy_alone() const { return {rows.shape, nullptr, nullptr, q_mma.get(), scales_mma.get()}; }
  void run(Context& ctx, const PackedWeights& w, cudaStream_t s) {
    linear(ctx, ops.set(0).b.get(), tokens, act, w, ops.set(0).c.get(), s);
  }
  // ||y - x W^T|| / ||x W^T|| of the last run's y, W the dequantized weights (after the stream's work).
  double error() const {
    const int64_t F = rows.shape.out_features, K = rows.shape.in_features;
    std::vector<float> deq(size_t(F * K));
    dequantize_host({rows.shape, to_host<uint8_t>(rows.q.get(), size_t(rows.shape.q_bytes())).data(),
                     to_host<uint8_t>(rows.scales.get(), size_t(rows.shape.scale_bytes)).data()},
                    deq.data());
    return relative_error(act, to_host<uint16_t>(ops.set(0).b.get(), size_t(tokens * K)), deq,
                          to_host<uint16_t>(ops.set(0).c.get(), size_t(tokens * F)), tokens, F, K);
  }

  DType act;
  int64_t tokens;
  device::Operands ops;
  Packed rows;
  device::Buffer q_mma, scales_mma;
};

TEST(QuantizedLinear, TheGpuQuantizerGivesTheReferencesBits) {
  TW_REQUIRE_GPU();
  const int64_t F = 256, K = 512;
  device::Stream s;
  for (DType d : {DType::bf16, DType::fp16}) {
    device::Operands ops(linear_problem(1, F, K, d), 1, 0);
    ops.fill(21, s.get());
    const std::vector<uint16_t> w = to_host<uint16_t>(ops.set(0).a.get(), size_t(F * K));
    for (WeightFormat f : kFormats) {
      SCOPED_TRACE(std::string(to_string(f)) + " from " + std::string(to_string(d)));
      const Packed gpu = pack(ops.set(0), d, f, F, K, s.get());
      std::vector<uint8_t> q(size_t(gpu.shape.q_bytes())), scales(size_t(gpu.shape.scale_bytes));
      quantize_host(w.data(), d, K, gpu.shape, q.data(), scales.data());
      EXPECT_EQ(to_host<uint8_t>(gpu.q.get(), q.size()), q);
      EXPECT_EQ(to_host<uint8_t>(gpu.scales.get(), scales.size()), scales);
      std::vector<float> on_gpu(size_t(F * K)), on_host(size_t(F * K));
      device::Buffer deq(on_gpu.size() * sizeof(float));
      dequantize(gpu.view(), deq.as<float>(), s.get());
      s.sync();
      on_gpu = to_host<float>(deq.get(), on_gpu.size());
      dequantize_host({gpu.shape, q.data(), scales.data()}, on_host.data());
      EXPECT_EQ(on_gpu, on_host);
    }
  }
}

TEST(QuantizedLinear, EveryTokenCountTheGemvServesIsCorrect) {
  TW_REQUIRE_GPU();
  const int64_t F = 384, K = 1024;
  Context ctx;
  device::Stream s;
  for (DType d : {DType::bf16, DType::fp16})
    for (WeightFormat f : kFormats)
      for (int64_t tokens : {1, 2, 3, 5, 8, 11, 16}) {
        SCOPED_TRACE(std::string(to_string(f)) + " " + std::string(to_string(d)) + " T=" + std::to_string(tokens));
        const Problem p = linear_problem(tokens, F, K, d);  // A = W, B = x, C = y
        device::Operands ops(p, 1, 0);
        ops.fill(uint64_t(22 + tokens), s.get());
        ops.poison_output(0, s.get());
        const Packed w = pack(ops.set(0), d, f, F, K, s.get());
        linear(ctx, ops.set(0).b.get(), tokens, d, w.view(), ops.set(0).c.get(), s.get());
        std::vector<float> deq(size_t(F * K));
        device::Buffer deq_gpu(deq.size() * sizeof(float));
        dequantize(w.view(), deq_gpu.as<float>(), s.get());
        s.sync();
        deq = to_host<float>(deq_gpu.get(), deq.size());
        const double e = relative_error(d, to_host<uint16_t>(ops.set(0).b.get(), size_t(tokens * K)), deq,
                                        to_host<uint16_t>(ops.set(0).c.get(), size_t(tokens * F)), tokens, F, K);
        EXPECT_TRUE(receipt::is_correct(e, receipt::correctness_bound(d))) << e;
      }
}

TEST(QuantizedLinear, TwoStreamsAtOnceMoreTokensAndBadPointers) {
  TW_REQUIRE_GPU();
  const int64_t F = 4096, K = 4096, tokens = 4;
  Context ctx;
  device::Stream s1, s2;
  const Problem p = linear_problem(tokens, F, K, DType::bf16);
  device::Operands ops(p, 2, 0);
  ops.fill(31, s1.get());
  ops.poison_outputs(s1.get());
  const Packed w = pack(ops.set(0), DType::bf16, WeightFormat::int4_g128, F, K, s1.get());
  for (int i = 0; i < 32; ++i) {
    linear(ctx, ops.set(0).b.get(), tokens, DType::bf16, w.view(), ops.set(0).c.get(), s1.get());
    linear(ctx, ops.set(1).b.get(), tokens, DType::bf16, w.view(), ops.set(1).c.get(), s2.get());
  }
  s1.sync(), s2.sync();
  std::vector<float> deq(size_t(F * K));
  dequantize_host({w.shape, to_host<uint8_t>(w.q.get(), size_t(w.shape.q_bytes())).data(),
                   to_host<uint8_t>(w.scales.get(), size_t(w.shape.scale_bytes)).data()},
                  deq.data());
  for (int set : {0, 1}) {
    const double e = relative_error(DType::bf16, to_host<uint16_t>(ops.set(set).b.get(), size_t(tokens * K)), deq,
                                    to_host<uint16_t>(ops.set(set).c.get(), size_t(tokens * F)), tokens, F, K);
    EXPECT_TRUE(receipt::is_correct(e, receipt::correctness_bound(DType::bf16))) << "stream " << set << ": " << e;
  }
  EXPECT_THROW(linear(ctx, ops.set(0).b.get(), 17, DType::bf16, w.view(), ops.set(0).c.get(), s1.get()), Unsupported);
  const auto* x = static_cast<const char*>(ops.set(0).b.get());
  auto* y = static_cast<char*>(ops.set(0).c.get());
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { linear(ctx, nullptr, tokens, DType::bf16, w.view(), y, s1.get()); }), "0x0"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { linear(ctx, x + 2, tokens, DType::bf16, w.view(), y, s1.get()); }), "aligned"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { linear(ctx, x, tokens, DType::bf16, w.view(), y + 1, s1.get()); }), "aligned"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { linear(ctx, x, tokens, DType::bf16, {w.shape, w.q.get(), nullptr}, y, s1.get()); }),
      "scales"));
}

// Past 16 tokens with the weights' tensor-core copy (pack_for_tensor_cores): the sm90 kernel on every packed format
// in nn.Linear's orientation, correct against the dequantized weights in both activation types; without the copy, or
// for rows not in whole blocks of 64, Unsupported naming what to do.
TEST(QuantizedLinear, PastSixteenTokensTheTensorCoreCopyServes) {
  TW_REQUIRE_GPU();
  Context ctx;
  device::Stream s;
  const int64_t F = 320, K = 512;
  for (DType act : {DType::bf16, DType::fp16})
    for (WeightFormat f : kFormats)
      for (int64_t tokens : {8, 16, 17, 64, 300}) {  // at 8 and 16 Q8_0 runs the copy on an H200, the rest the gemv
        SCOPED_TRACE(std::string(to_string(f)) + ", " + std::to_string(tokens) + " tokens");
        BothOrders w(act, f, F, tokens, K, 37, s.get());
        w.run(ctx, w.both(), s.get());
        s.sync();
        // Which kernel the context built for the call: the sm90 kernel on the copy, else the gemv.
        const auto& state = ContextAccess::state(ctx);
        const bool ran_sm90 = state.packed_mma.count({int(f), tokens, F, K, act, s.get()}) == 1;
        const bool ran_gemv = state.packed.count({int(f), tokens, F, K, act, false}) == 1;
        EXPECT_NE(ran_sm90, ran_gemv);
        if (tokens > kGemvMaxTokens || (f == WeightFormat::q8_0 && select::crossover_measured_on(running_identity().gpu)))
          EXPECT_TRUE(ran_sm90);
        else
          EXPECT_TRUE(ran_gemv);
        const double e = w.error();
        EXPECT_TRUE(receipt::is_correct(e, receipt::correctness_bound(act))) << e;
      }
  const Problem p = make_problem("lin", F, 32, K, DType::bf16, Layout::TN);
  device::Operands ops(p, 1, 0);
  const Packed q8 = pack(ops.set(0), DType::bf16, WeightFormat::q8_0, F, K, s.get());
  const Packed short_rows = pack(ops.set(0), DType::bf16, WeightFormat::q8_0, 96, K, s.get());
  device::Buffer q_mma(size_t(short_rows.shape.q_bytes())), scales_mma(size_t(short_rows.shape.scale_bytes));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] {
                                  pack_for_tensor_cores(short_rows.view(), q_mma.get(), scales_mma.get(), s.get());
                                }),
                                "whole blocks of 64"));
  EXPECT_TRUE(testkit::Contains(
      testkit::error_of([&] { linear(ctx, ops.set(0).b.get(), 32, DType::bf16, q8.view(), ops.set(0).c.get(), s.get()); }),
      "pack_for_tensor_cores"));
  // Half the copy is refused at every token count, also where the gemv would serve it.
  PackedWeights half = q8.view();
  half.q_mma = q_mma.get();
  for (int64_t tokens : {1, 8, 32})
    EXPECT_TRUE(testkit::Contains(testkit::error_of([&] {
                                    linear(ctx, ops.set(0).b.get(), tokens, DType::bf16, half, ops.set(0).c.get(), s.get());
                                  }),
                                  "come together"));
}

// The tensor-core copy alone (q and scales null) serves every token count: int4 at 1..8 tokens through the gemv on
// the copy where its CTAs keep the SMs busy, the rest through the sm90 kernel, each correct against the dequantized
// weights; which kernel the context built is the one linear_kernel names. Where x of 8 tokens outgrows the gemv's
// shared memory, the sm90 kernel. With neither order, or half of one, an Error before any launch.
TEST(QuantizedLinear, TheTensorCoreCopyAloneServesEveryTokenCount) {
  TW_REQUIRE_GPU();
  Context ctx;
  device::Stream s;
  const int64_t F = 320, K = 1024;
  for (DType act : {DType::bf16, DType::fp16})
    for (WeightFormat f : kFormats)
      for (int64_t tokens : {1, 3, 8, 9, 16, 17, 40}) {
        SCOPED_TRACE(std::string(to_string(f)) + " " + std::string(to_string(act)) + ", " + std::to_string(tokens) +
                     " tokens");
        BothOrders w(act, f, F, tokens, K, uint64_t(43 + tokens), s.get());
        // Too few CTAs for the gemv on the copy to keep the SMs busy (packed_crossover.cpp): the sm90 kernel.
        const LinearKernel expected = LinearKernel::sm90;
        EXPECT_EQ(linear_kernel(ctx, w.copy_alone(), tokens), expected);
        w.run(ctx, w.copy_alone(), s.get());
        s.sync();
        const auto& state = ContextAccess::state(ctx);
        EXPECT_EQ(state.packed.count({int(f), tokens, F, K, act, true}), expected == LinearKernel::gemv_mma_order);
        EXPECT_EQ(state.packed_mma.count({int(f), tokens, F, K, act, s.get()}), expected == LinearKernel::sm90);
        EXPECT_EQ(state.packed.count({int(f), tokens, F, K, act, false}), 0u);
        const double e = w.error();
        EXPECT_TRUE(receipt::is_correct(e, receipt::correctness_bound(act))) << e;
      }
  // Where its CTAs keep the SMs busy, int4 at 1..8 tokens runs the gemv on the copy.
  for (WeightFormat f : {WeightFormat::int4_g128, WeightFormat::int4_g32})
    for (int64_t tokens : {1, 8}) {
      SCOPED_TRACE(std::string(to_string(f)) + ", " + std::to_string(tokens) + " tokens on 12288 x 4096");
      BothOrders w(DType::bf16, f, 12288, tokens, 4096, uint64_t(53 + tokens), s.get());
      EXPECT_EQ(linear_kernel(ctx, w.copy_alone(), tokens), LinearKernel::gemv_mma_order);
      w.run(ctx, w.copy_alone(), s.get());
      s.sync();
      EXPECT_EQ(ContextAccess::state(ctx).packed.count({int(f), tokens, 12288, 4096, DType::bf16, true}), 1u);
      const double e = w.error();
      EXPECT_TRUE(receipt::is_correct(e, receipt::correctness_bound(DType::bf16))) << e;
    }
  // 8 tokens of x take 16 bytes a K in the gemv's shared memory, beside its warps' sums: up to K = 14,016.
  for (const auto& [K_, expected] : {std::pair{int64_t(14016), LinearKernel::gemv_mma_order},
                                     std::pair{int64_t(14080), LinearKernel::sm90}}) {
    // linear_kernel reads no weights: any non-null pointer stands for the copy.
    const PackedWeights copy{packed_shape(WeightFormat::int4_g32, 4096, K_), nullptr, nullptr, &ctx, &ctx};
    EXPECT_EQ(linear_kernel(ctx, copy, 8), expected) << "K = " << K_;
    EXPECT_EQ(linear_kernel(ctx, copy, 7), LinearKernel::gemv_mma_order) << "K = " << K_;
  }
  // Neither order, or half of one: refused before any launch.
  const Problem p = make_problem("lin", F, 4, K, DType::bf16, Layout::TN);
  device::Operands ops(p, 1, 0);
  const Packed w = pack(ops.set(0), DType::bf16, WeightFormat::int4_g128, F, K, s.get());
  const auto error_with = [&](const PackedWeights& bad) {
    return testkit::error_of(
        [&] { linear(ctx, ops.set(0).b.get(), 4, DType::bf16, bad, ops.set(0).c.get(), s.get()); });
  };
  EXPECT_TRUE(testkit::Contains(error_with({w.shape, nullptr, nullptr, nullptr, nullptr}), "needs q and scales, or"));
  EXPECT_TRUE(testkit::Contains(error_with({w.shape, w.q.get(), nullptr, nullptr, nullptr}), "come together"));
  EXPECT_TRUE(testkit::Contains(error_with({w.shape, nullptr, w.scales.get(), nullptr, nullptr}), "come together"));
}

// A serving engine meets a new token count at most steps, and each gets its own plan: one stream's plans share its
// stream-K scratch and the kernels they load, so 64 token counts hold under four times what the largest alone needs
// (each held its own partials before, 3-8 MiB apiece at 24-64 tokens on these weights, about 270 MiB in all, and
// its own copy of the kernel), and every one of them, run one after another on that stream, stays correct.
TEST(QuantizedLinear, EveryTokenCountOnAStreamSharesItsScratch) {
  TW_REQUIRE_GPU();
  const int64_t F = 4096, K = 512, first = 17, last = 80;
  const DType act = DType::bf16;
  const Problem widest = make_problem("lin", F, last, K, act, Layout::TN);  // A: W[F][K], B: x[tokens][K]
  Context ctx;
  device::Stream s;
  device::Operands ops(widest, 1, 0);
  ops.fill(41, s.get());
  const Packed w = pack(ops.set(0), act, WeightFormat::int4_g128, F, K, s.get());
  device::Buffer q_mma(size_t(w.shape.q_bytes())), scales_mma(size_t(w.shape.scale_bytes));
  pack_for_tensor_cores(w.view(), q_mma.get(), scales_mma.get(), s.get());
  dequantize(w.view(), ops.set(0).a.get(), act, s.get());  // A becomes the weights the kernel computes with
  PackedWeights both = w.view();
  both.q_mma = q_mma.get(), both.scales_mma = scales_mma.get();
  const void* x = ops.set(0).b.get();
  void* y = ops.set(0).c.get();

  linear(ctx, x, first, act, both, y, s.get());
  s.sync();
  size_t free_before = 0, free_after = 0, total = 0;
  TW_CUDA(cudaMemGetInfo(&free_before, &total));
  for (int64_t tokens = first + 1; tokens <= last; ++tokens) linear(ctx, x, tokens, act, both, y, s.get());
  s.sync();
  TW_CUDA(cudaMemGetInfo(&free_after, &total));
  // The scratch itself, exactly; and the device as a whole, which also counts the loaded kernels (and whatever the
  // driver takes meanwhile, so only loosely). The device-wide figure counts every process on the GPU: run this test
  // with the GPU to itself (beside ten other test processes it saw 2 GB go: docs/notes/2026-12-03-gpu-tests.md, run 26).
  EXPECT_LT(ContextAccess::state(ctx).scratch_of(s.get()).bytes_held(), size_t(40) << 20);
  EXPECT_LT(double(free_before) - double(free_after), 64.0 * 1048576) << "device memory taken by 63 more token counts";

  // Again, each judged (the plans exist now), in an order that runs a larger plan before a smaller one.
  for (int64_t tokens = last; tokens >= first; tokens -= 7) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens");
    const Problem p = make_problem("lin", F, tokens, K, act, Layout::TN);
    const device::Reference ref(p, ops.set(0), s.get());
    ops.poison_outputs(s.get());
    linear(ctx, x, tokens, act, both, y, s.get());
    const device::OutputError e = ref.compare(y, s.get());
    EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(act)))
        << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
  }
}

}  // namespace
}  // namespace tilewise
