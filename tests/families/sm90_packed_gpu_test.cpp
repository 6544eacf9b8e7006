// The sm90 kernel on packed int4, Q8_0 and fp8 weights (kernels/sm90/packed.h): the GPU reorder bit for bit against
// its CPU reference, and the arms sm90:int4 / -g32 / q8_0 / fp8 against the fp32 reference from their own dequantized
// weights over token counts from 1 to past one tile (edge tiles along M), a partial block row of tiles along N
// (N = 192 on 128-row tiles), K from one group to many, both 16-bit activations, and every store, stream-K and
// ping-pong.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <vector>

#include "arm_bench.hpp"
#include "bench/arm.hpp"
#include "core/error.hpp"
#include "device/reference.hpp"
#include "expect_error.hpp"
#include "families/sm90/arms.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/packed.hpp"
#include "gpu.hpp"
#include "receipt/derive.hpp"
#include "varied_scales.hpp"

namespace tilewise::sm90 {
namespace {

using testkit::download;

TEST(Sm90PackedGpu, ReorderMatchesTheCpuReferenceBitForBit) {
  TW_REQUIRE_GPU();
  device::Stream s;
  for (gemv::Format f : {gemv::Format::int4_g128, gemv::Format::int4_g32, gemv::Format::q8_0, gemv::Format::fp8}) {
    const int64_t N = 320, K = 640;
    const Problem p = make_problem("w", 1, N, K, DType::bf16, Layout::TN);
    device::Operands ops(p, 1, 0);
    ops.fill(3, s.get());
    const gemv::PackedWeights rows = gemv::quantize(ops.set(0).b.get(), DType::bf16, N, K, K, f, s.get());
    const gemv::PackedWeights packed = to_kernel_order(rows, s.get());
    s.sync();
    const gemv::HostPacked host{rows.layout, download<uint8_t>(rows.q.get(), size_t(rows.layout.q_bytes())),
                                download<uint8_t>(rows.scales.get(), size_t(rows.layout.scale_bytes))};
    const gemv::HostPacked want = to_kernel_order_cpu(host);
    EXPECT_EQ(download<uint8_t>(packed.q.get(), want.q.size()), want.q);
    EXPECT_EQ(download<uint8_t>(packed.scales.get(), want.scales.size()), want.scales);
  }
}

// Runs the arm on p in `orientation` and judges it as the harness does: against the reference from its dequantized
// weights (B's rows, or A's in nn.Linear's orientation), which differ in scale from row to row and group to group
// (varied_scales.hpp).
void expect_correct(const Problem& p, const std::string& arm_name, cudaStream_t stream,
                    Orientation orientation = Orientation::column_major) {
  SCOPED_TRACE(arm_name + " on " + describe(p) + " in " + std::string(to_string(orientation)));
  const bool linear = orientation == Orientation::linear;
  testkit::ArmBench bench(p, 2, 29, stream, 1, orientation);
  for (int set = 0; set < bench.ops.count(); ++set)
    testkit::vary_scales((linear ? bench.ops.set(set).a : bench.ops.set(set).b).get(), p.dtype, linear ? p.M : p.N,
                         p.K, linear ? p.lda : p.ldb, stream);
  auto arm = make_arm(arm_name);
  ASSERT_TRUE(arm);
  arm->prepare(bench.wb);  // throws, failing the test, where the arm declines
  const device::Replaced weights = arm->judged_weights();
  ASSERT_NE(weights.rows, nullptr);
  EXPECT_EQ(weights.a, linear);
  const device::Reference ref(p, bench.ops.set(0), weights, stream);
  EXPECT_TRUE(ref.check_fp64(bench.ops.set(0)).ok);
  const bench::Workbench judged{p, bench.ops, ref, stream, 0.5, 1, 1, false, 0, orientation};
  const device::Launch launch = [&](int set, cudaStream_t st) { arm->launch(set, st); };
  const device::OutputError e = bench::checked_run(judged, launch);
  EXPECT_TRUE(receipt::is_correct(e.rel_err, receipt::correctness_bound(p.dtype)))
      << arm->config_text() << ": " << (e.rel_err ? std::to_string(*e.rel_err) : "non-finite output");
  // Every set of the arm's rotation runs (the persistent tiles and the barriers' phases carry over).
  for (int set = 1; set < std::max(2, arm->rotation_sets()); ++set) launch(set, stream);
  TW_CUDA(cudaStreamSynchronize(stream));
}

// `fields` with the deepest ring, up to its own, that fits `format`'s weights on `p`: a byte format's weight tile is
// twice int4's, so the deepest rings of the int4 cases exceed shared memory with it (and are declined, naming it).
// `fields` names its stages, tile, consumers and store, the fields shared memory depends on; the arm lays them over
// its rule's configuration, this over the defaults, which differ only in fields shared memory does not depend on.
std::string fitted(const std::string& fields, gemv::Format format, const Problem& p) {
  if (fields.find("stages=") == std::string::npos) ADD_FAILURE() << fields << " names no ring depth";
  std::string commas = fields;  // an arm's overrides are separated by ';', a configuration's fields by ','
  std::replace(commas.begin(), commas.end(), ';', ',');
  Config c = parse_config(commas);
  c.weights = packed_weights(format);
  const std::optional<Config> fits = with_deepest_ring(c, p, c.stages);
  if (!fits) {
    ADD_FAILURE() << "no ring depth fits " << fields << " with " << gemv::to_string(format) << " on " << describe(p);
    return fields;
  }
  return std::regex_replace(fields, std::regex("stages=[0-9]+"), "stages=" + std::to_string(fits->stages));
}

TEST(Sm90PackedGpu, TheRuleMatchesTheDequantizedReference) {
  TW_REQUIRE_GPU();
  device::Stream s;
  for (DType act : {DType::bf16, DType::fp16})
    for (int64_t tokens : {1, 16, 17, 40, 64, 100, 128, 300})
      for (auto [N, K] : {std::pair<int64_t, int64_t>{192, 128}, {4096, 1024}, {256, 2048}}) {
        expect_correct(make_problem("q", tokens, N, K, act, Layout::TN), "sm90:int4", s.get());
        expect_correct(make_problem("q", tokens, N, K, act, Layout::TN), "sm90:fp8", s.get());
        expect_correct(make_problem("q", tokens, N, K, act, Layout::TN), "sm90:int8", s.get());
        if (tokens == 17 || tokens == 300)
          expect_correct(make_problem("q", tokens, N, K, act, Layout::TN), "sm90:int4-g32", s.get());
      }
}

// One instance an arm, so that the instances' compiles can run in processes of their own.
class Sm90PackedStores : public testing::TestWithParam<std::pair<const char*, gemv::Format>> {};

TEST_P(Sm90PackedStores, EveryStoreScheduleAndSplitMatchesTheReference) {
  TW_REQUIRE_GPU();
  const auto [arm, format] = GetParam();
  device::Stream s;
  const char* configs[] = {
      "block_m=128;block_n=128;stages=8;consumers=2;store=tma",
      "block_m=64;block_n=128;stages=6;consumers=2;store=tma_ring;split=3",
      "block_m=128;block_n=128;stages=6;consumers=2;store=tma;schedule=pingpong",
      "block_m=96;block_n=128;stages=6;consumers=1;store=staged;raster=n;group=4",
      "block_m=16;block_n=64;stages=8;consumers=1;store=direct;split=2",
      "block_m=256;block_n=128;stages=4;consumers=2;store=direct",
      "block_m=128;block_n=256;stages=4;consumers=2;store=tma",
  };
  for (const char* c : configs)
    for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{200, 320, 512}, {1000, 1024, 1536}})
      for (DType act : {DType::bf16, DType::fp16})  // the byte formats widen by other code in fp16
        if (act == DType::bf16 || format == gemv::Format::q8_0 || format == gemv::Format::fp8) {
          const Problem p = make_problem("q", M, N, K, act, Layout::TN);
          expect_correct(p, std::string(arm) + "@" + fitted(c, format, p), s.get());
        }
}

INSTANTIATE_TEST_SUITE_P(Arms, Sm90PackedStores, testing::ValuesIn(packed_arms()),
                         [](const auto& info) { return std::string(gemv::to_string(info.param.second)); });

// What compute-sanitizer runs (scripts/gpu-tests.sh): one and two consumers, each store kind, ping-pong, stream-K's
// fixup and the streaming tile's deep ring, on a problem with edge tiles along M and a partial row of tiles along N;
// and nn.Linear's swapped operands with the staged store's transposed columns.
TEST(Sm90PackedGpu, SanitizedSet) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const Problem lin = make_problem("q_lin", 320, 200, 512, DType::bf16, Layout::TN);
  expect_correct(lin, "sm90:int4@" + fitted("block_m=256;block_n=128;stages=4;consumers=2;store=staged;swap=1",
                                            gemv::Format::int4_g128, lin),
                 s.get(), Orientation::linear);
  for (const char* c : {"block_m=128;block_n=128;stages=4;consumers=2;store=tma",
                        "block_m=128;block_n=128;stages=4;consumers=2;store=direct",
                        "block_m=128;block_n=128;stages=4;consumers=2;store=tma;schedule=pingpong",
                        "block_m=128;block_n=64;stages=4;consumers=1;store=tma",
                        "block_m=64;block_n=64;stages=4;consumers=1;store=direct;split=3",
                        "block_m=16;block_n=256;stages=16;consumers=2;store=direct;split=8"})
    for (const auto& [arm, format] : packed_arms())
      if (format != gemv::Format::int4_g32) {
        const Problem p = make_problem("q", 200, 320, 512, DType::bf16, Layout::TN);
        expect_correct(p, std::string(arm) + "@" + fitted(c, format, p), s.get());
      }
}

// nn.Linear's orientation, y[T][F] = x W^T: TN with M = F, N = T, A = W packed, B = x, the operands swapped so the
// weights stay on wgmma's 64-row side. The kernel then sees the same problem as in the column-major form (tokens as
// M, W as B) and computes the same sums in the same order; only the store differs. So the two outputs must agree bit
// for bit, element (t, f) of each, and the column-major form is the one judged against the reference above.
class Sm90PackedOrientations : public testing::TestWithParam<gemv::Format> {};

TEST_P(Sm90PackedOrientations, NnLinearOrientationMatchesTheColumnMajorFormBitForBit) {
  TW_REQUIRE_GPU();
  const gemv::Format format = GetParam();
  device::Stream s;
  const int sms = device::sm_count();
  const char* tiles[] = {"block_m=128,block_n=128,stages=6,consumers=2,store=direct",
                         "block_m=256,block_n=128,stages=4,consumers=2,store=staged",
                         "block_m=40,block_n=128,stages=6,consumers=1,store=staged,split=2",
                         "block_m=64,block_n=64,stages=8,consumers=1,store=direct,split=3",
                         "block_m=24,block_n=128,stages=8,consumers=2,store=direct,schedule=pingpong",
                         "block_m=24,block_n=256,stages=16,consumers=2,store=direct,split=8"};
  for (DType act : {DType::bf16, DType::fp16})
    for (int64_t T : {17, 128, 300})
      for (const char* tile : tiles) {
        const int64_t F = 320, K = 512;
        SCOPED_TRACE(std::string(tile) + ", " + std::to_string(T) + " tokens, " + std::string(to_string(act)) + ", " +
                     std::string(gemv::to_string(format)));
        const Problem col = make_problem("col", T, F, K, act, Layout::TN);  // C[t + f * ldc]
        const Problem lin = make_problem("lin", F, T, K, act, Layout::TN);  // C[f + t * ldc]: y row-major
        device::Operands ops(col, 1, 0);
        ops.fill(41, s.get());  // A: x[T][K], B: W[F][K]
        const gemv::PackedWeights rows = gemv::quantize(ops.set(0).b.get(), act, F, K, K, format, s.get());
        const gemv::PackedWeights packed = to_kernel_order(rows, s.get());
        Config c = parse_config(fitted(tile, format, col));
        c.weights = packed_weights(format);
        Gemm by_col(col, c, sms);
        c.swap = true;
        Gemm by_lin(lin, c, sms);
        device::Buffer y(size_t(lin.ldc * T * 2));
        by_col.run(ops.set(0).a.get(), packed.q.get(), ops.set(0).c.get(), s.get(), packed.scales.get());
        by_lin.run(packed.q.get(), ops.set(0).a.get(), y.get(), s.get(), packed.scales.get());
        s.sync();
        const std::vector<uint16_t> got_col = download<uint16_t>(ops.set(0).c.get(), size_t(col.ldc * F));
        const std::vector<uint16_t> got_lin = download<uint16_t>(y.get(), size_t(lin.ldc * T));
        int64_t differ = 0;
        for (int64_t t = 0; t < T; ++t)
          for (int64_t f = 0; f < F; ++f)
            differ += got_col[size_t(t + f * col.ldc)] != got_lin[size_t(f + t * lin.ldc)];
        EXPECT_EQ(differ, 0) << "of " << T * F << " outputs";
      }
}

INSTANTIATE_TEST_SUITE_P(Formats, Sm90PackedOrientations,
                         testing::Values(gemv::Format::int4_g128, gemv::Format::q8_0, gemv::Format::fp8),
                         [](const auto& info) { return std::string(gemv::to_string(info.param)); });

// In nn.Linear's orientation (a suite named *-linear) the arms pack A, the weights, and run swapped as
// tilewise::linear does; judged against the reference with A replaced by their dequantized weights. An override of
// swap that disagrees with the orientation is refused, naming both.
TEST(Sm90PackedGpu, TheArmsPackTheOperandTheOrientationNames) {
  TW_REQUIRE_GPU();
  device::Stream s;
  for (DType act : {DType::bf16, DType::fp16})
    for (int64_t tokens : {1, 8, 16, 17, 128, 300})
      for (const auto& [arm, format] : packed_arms())
        if (format != gemv::Format::int4_g32 || tokens == 17)
          expect_correct(make_problem("q_lin", 320, tokens, 1024, act, Layout::TN), arm, s.get(), Orientation::linear);
  // The staged store's transposed columns, on tiles past the edges along both F (320 = 2.5 x 128) and the tokens.
  for (const auto& [arm, format] : packed_arms())
    expect_correct(make_problem("q_lin", 320, 300, 1024, DType::bf16, Layout::TN),
                   std::string(arm) + "@" +
                       fitted("block_m=256;block_n=128;stages=4;consumers=2;store=staged;swap=1", format,
                              make_problem("q_lin", 320, 300, 1024, DType::bf16, Layout::TN)),
                   s.get(), Orientation::linear);
  const Problem both = make_problem("q", 320, 64, 512, DType::bf16, Layout::TN);  // A and B whole blocks of 64 rows
  const testkit::ArmBench linear(both, 1, 29, s.get(), 1, Orientation::linear);
  const testkit::ArmBench column(both, 1, 29, s.get(), 1, Orientation::column_major);
  const std::string as_b = testkit::error_of([&] { make_arm("sm90:int4@swap=0")->prepare(linear.wb); });
  EXPECT_TRUE(testkit::Contains(as_b, "in nn.Linear orientation the weights are A")) << as_b;
  const std::string as_a = testkit::error_of([&] { make_arm("sm90:int4@swap=1")->prepare(column.wb); });
  EXPECT_TRUE(testkit::Contains(as_a, "in column-major orientation the weights are B")) << as_a;
  // nn.Linear's weights are rows of K: an NN problem is declined in that orientation.
  const testkit::ArmBench nn(make_problem("q_lin", 320, 16, 512, DType::bf16, Layout::NN), 1, 29, s.get(), 1,
                             Orientation::linear);
  EXPECT_THROW(make_arm("sm90:int4")->prepare(nn.wb), Unsupported);
}

TEST(Sm90PackedGpu, AShapeThePackingCannotTakeIsDeclinedWithItsReason) {
  TW_REQUIRE_GPU();
  device::Stream s;
  const Problem p = make_problem("q", 64, 200, 512, DType::bf16, Layout::TN);  // 200 rows: not whole blocks of 64
  const testkit::ArmBench bench(p, 2, 29, s.get(), 1);
  auto arm = make_arm("sm90:int4");
  try {
    arm->prepare(bench.wb);
    FAIL() << "200 weight rows were packed";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("whole blocks of 64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilewise::sm90
