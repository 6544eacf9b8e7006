// The two timing paths agree on a kernel long enough that launch cost does not matter, and the host loop times the
// stream of launches: not the host's way to its first launch, but every wait for a host slower than its kernels.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <utility>

#include "device/operands.hpp"
#include "device/timing.hpp"
#include "families/cublaslt/matmul.hpp"
#include "gpu.hpp"

namespace tilewise::device {
namespace {

// A 4096^3 bf16 GEMM through cuBLASLt's first heuristic choice: about 200 us. Everything is made after the GPU
// check, so a machine without one skips rather than fails.
class LongKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    TW_REQUIRE_GPU();
    s.emplace();
    ops.emplace(p, 1, 0);
    ops->fill(3, s->get());
    ctx.emplace();
    mm.emplace(*ctx, p);
    algo = mm->heuristic(1).front();
  }
  void launch(int set, cudaStream_t st) {
    mm->run(algo, ops->set(set).a.get(), ops->set(set).b.get(), ops->set(set).c.get(), st);
  }
  double graph_us(int launches) {
    GraphTimer graph([&](int set, cudaStream_t st) { launch(set, st); }, launches, 1, s->get());
    graph.measure(3);  // settle clocks
    return graph.measure(3);
  }

  const Problem p = make_problem("long", 4096, 4096, 4096, DType::bf16, Layout::TN);
  std::optional<Stream> s;
  std::optional<Operands> ops;
  std::optional<cublaslt::Context> ctx;
  std::optional<cublaslt::Matmul> mm;
  cublaslt::Candidate algo{};
};

TEST_F(LongKernel, GraphReplayAndHostLoopAgree) {
  const double graph = graph_us(20);
  const double host = time_host_loop([&](int set, cudaStream_t st) { launch(set, st); }, 20, 1, s->get());
  EXPECT_GT(graph, 50.0);
  EXPECT_LT(std::fabs(host - graph) / graph, 0.10) << "graph " << graph << " us, host " << host << " us";
}

// The host loop times the stream, not the host's way to its first launch: a first call that spends 2 ms on the
// host (a library's per-stream setup, say) costs the loop nothing.
TEST_F(LongKernel, HostLoopLeavesOutTheHostsWayToItsFirstLaunch) {
  const double graph = graph_us(10);
  bool first = true;
  const double host = time_host_loop(
      [&](int set, cudaStream_t st) {
        if (std::exchange(first, false)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        launch(set, st);
      },
      10, 1, s->get());
  EXPECT_LT(std::fabs(host - graph) / graph, 0.05) << "graph " << graph << " us, host " << host << " us";
}

// ...but a host slower than the kernels it launches shows: the GPU waits for every launch, as an application's would.
TEST_F(LongKernel, HostLoopShowsAHostSlowerThanItsKernels) {
  const double graph = graph_us(10);
  const auto pause = std::chrono::microseconds(int64_t(2 * graph));
  const double host = time_host_loop(
      [&](int set, cudaStream_t st) {
        std::this_thread::sleep_for(pause);
        launch(set, st);
      },
      10, 1, s->get());
  EXPECT_GT(host, 1.8 * graph) << "graph " << graph << " us, host " << host << " us";
}

}  // namespace
}  // namespace tilewise::device
