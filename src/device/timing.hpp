#pragma once
// The two timing paths: CUDA-graph replay of many launches timed by events (kernel time, launch gaps hidden),
// and a plain launch loop timed on the host clock (what an application sees). Launch i uses operand set
// i % sets, so a cold rotation is walked in order.
#include <cuda_runtime.h>

#include <functional>
#include <memory>

namespace tilewise::device {

using Launch = std::function<void(int set, cudaStream_t stream)>;

// Launches per measurement so one graph replay spans about target_ms, a whole number of rotations and >= 1.
int launches_for(double estimate_us, double target_ms, int sets);

class GraphTimer;

// A graph timer sized so one replay spans about target_ms: one pass over the sets where that already spans it, else
// a quick estimate (one replay of at least 16 launches) sets the launch count through launches_for.
std::unique_ptr<GraphTimer> sized_graph_timer(const Launch& launch, int sets, double target_ms, cudaStream_t stream);

class GraphTimer {
 public:
  GraphTimer(const Launch& launch, int launches, int sets, cudaStream_t stream);
  ~GraphTimer();
  GraphTimer(const GraphTimer&) = delete;
  GraphTimer& operator=(const GraphTimer&) = delete;

  // Median microseconds per launch over `replays` timed replays (after one untimed replay).
  double measure(int replays);
  int launches() const { return launches_; }

 private:
  int launches_;
  cudaStream_t stream_;
  cudaGraphExec_t exec_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Microseconds per launch of `launches` back-to-back launches followed by one synchronize, on the host clock.
double time_host_loop(const Launch& launch, int launches, int sets, cudaStream_t stream);

}  // namespace tilewise::device
