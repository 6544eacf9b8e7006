// The two timing paths agree on a kernel long enough that launch cost does not matter.
#include <gtest/gtest.h>

#include <cmath>

#include "device/operands.hpp"
#include "device/timing.hpp"
#include "families/cublaslt/matmul.hpp"
#include "gpu.hpp"

namespace tilewise::device {
namespace {

TEST(Timing, GraphReplayAndHostLoopAgreeOnALongKernel) {
  TW_REQUIRE_GPU();
  Stream s;
  const Problem p = make_problem("long", 4096, 4096, 4096, DType::bf16, Layout::TN);  // ~200 us
  Operands ops(p, 1, 0);
  ops.fill(3, s.get());
  cublaslt::Context ctx;
  cublaslt::Matmul mm(ctx, p);
  const cublaslt::Candidate algo = mm.heuristic(1).front();
  const Launch launch = [&](int set, cudaStream_t st) {
    mm.run(algo, ops.set(set).a.get(), ops.set(set).b.get(), ops.set(set).c.get(), st);
  };
  GraphTimer graph(launch, 20, 1, s.get());
  graph.measure(3);  // settle clocks
  const double graph_us = graph.measure(3);
  const double host_us = time_host_loop(launch, 20, 1, s.get());
  EXPECT_GT(graph_us, 50.0);
  EXPECT_LT(std::fabs(host_us - graph_us) / graph_us, 0.10) << "graph " << graph_us << " us, host " << host_us << " us";
}

}  // namespace
}  // namespace tilewise::device
