#include "device/timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "device/cuda.hpp"
#include "receipt/derive.hpp"

namespace tilewise::device {

int launches_for(double estimate_us, double target_ms, int sets) {
  const double want = std::ceil(target_ms * 1000.0 / std::max(estimate_us, 0.5));
  int n = int(std::clamp(want, 1.0, 20000.0));
  n = std::max(n, sets);
  return (n + sets - 1) / sets * sets;
}

GraphTimer::GraphTimer(const Launch& launch, int launches, int sets, cudaStream_t stream)
    : launches_(launches), stream_(stream) {
  cudaGraph_t graph = nullptr;
  TW_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < launches; ++i) launch(i % sets, stream);
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  TW_CUDA(cudaStreamEndCapture(stream, &graph));
  const cudaError_t err = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);
  TW_CUDA(err);
  TW_CUDA(cudaGraphUpload(exec_, stream));
  TW_CUDA(cudaEventCreate(&start_));
  TW_CUDA(cudaEventCreate(&stop_));
}

GraphTimer::~GraphTimer() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

double GraphTimer::measure(int replays) {
  TW_CUDA(cudaGraphLaunch(exec_, stream_));
  std::vector<double> us;
  for (int r = 0; r < replays; ++r) {
    TW_CUDA(cudaEventRecord(start_, stream_));
    TW_CUDA(cudaGraphLaunch(exec_, stream_));
    TW_CUDA(cudaEventRecord(stop_, stream_));
    TW_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    TW_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    us.push_back(ms * 1000.0 / launches_);
  }
  return receipt::median(us);
}

std::unique_ptr<GraphTimer> sized_graph_timer(const Launch& launch, int sets, double target_ms, cudaStream_t stream) {
  // One pass over the sets first: a kernel that alone spans the target (a large GEMM, or a slow candidate of one)
  // needs no longer graph, and timing 16 of it only to learn that would cost more than its measurement.
  auto one_pass = std::make_unique<GraphTimer>(launch, sets, sets, stream);
  if (one_pass->measure(1) * sets >= target_ms * 1000.0) return one_pass;
  const double estimate = GraphTimer(launch, (std::max(sets, 16) + sets - 1) / sets * sets, sets, stream).measure(1);
  return std::make_unique<GraphTimer>(launch, launches_for(estimate, target_ms, sets), sets, stream);
}

namespace {

// An event destroyed with its scope, so a launch that throws leaks none.
struct ScopedEvent {
  cudaEvent_t e = nullptr;
  ScopedEvent() { TW_CUDA(cudaEventCreate(&e)); }
  ~ScopedEvent() { cudaEventDestroy(e); }
  ScopedEvent(const ScopedEvent&) = delete;
  ScopedEvent& operator=(const ScopedEvent&) = delete;
};

}  // namespace

double time_host_loop(const Launch& launch, int launches, int sets, cudaStream_t stream) {
  ScopedEvent start, stop;
  launch(sets - 1, stream);  // the launch before the first in the rotation: the timed ones queue behind it
  TW_CUDA(cudaEventRecord(start.e, stream));
  for (int i = 0; i < launches; ++i) launch(i % sets, stream);
  TW_CUDA(cudaEventRecord(stop.e, stream));
  TW_CUDA(cudaEventSynchronize(stop.e));
  float ms = 0;
  TW_CUDA(cudaEventElapsedTime(&ms, start.e, stop.e));
  return ms * 1000.0 / launches;
}

std::vector<std::vector<double>> time_interleaved(Timers& timers, int rounds, int replays,
                                                  const std::function<void(const std::vector<std::vector<double>>&)>&
                                                      after_round) {
  std::vector<std::vector<double>> samples(timers.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < timers.size(); ++k) {
      const size_t i = (k + size_t(round)) % timers.size();
      if (timers[i]) samples[i].push_back(timers[i]->measure(replays));
    }
    if (after_round) after_round(samples);
  }
  return samples;
}

}  // namespace tilewise::device
