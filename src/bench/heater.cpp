#include "bench/heater.hpp"

#include <chrono>

#include "device/launchers.hpp"
#include "families/cublaslt/matmul.hpp"

namespace tilewise::bench {

// 8192^3 bf16: about 1.4 ms a launch on an H200, long enough to hold the chip at its sustained clock.
struct Heater::Load {
  Problem problem = make_problem("heater", 8192, 8192, 8192, DType::bf16, Layout::TN);
  cublaslt::Context ctx{size_t(32) << 20};
  cublaslt::Matmul matmul{ctx, problem};
  cublaslt::Candidate algo = matmul.heuristic(1).front();
  device::Buffer a{size_t(a_bytes(problem))}, b{size_t(b_bytes(problem))}, c{size_t(c_bytes(problem))};
};

Heater::Heater() : load_(std::make_unique<Load>()) {
  device::Stream s;
  device::launch_fill(DType::bf16, load_->a.get(), load_->a.bytes() / 2, 1, s.get());
  device::launch_fill(DType::bf16, load_->b.get(), load_->b.bytes() / 2, 2, s.get());
  s.sync();
}

Heater::~Heater() = default;

double Heater::run(double seconds, cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (elapsed() < seconds) {
    for (int i = 0; i < 4; ++i) load_->matmul.run(load_->algo, load_->a.get(), load_->b.get(), load_->c.get(), stream);
    TW_CUDA(cudaStreamSynchronize(stream));
  }
  return elapsed();
}

double replay_for(device::GraphTimer& timer, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (elapsed() < seconds) timer.measure(1);  // two back-to-back replays a synchronize; the figure is unused
  return elapsed();
}

}  // namespace tilewise::bench
