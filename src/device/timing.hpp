#pragma once
// The two timing paths: CUDA-graph replay of many launches timed by events (kernel time, launch gaps hidden),
// and a plain launch loop from the host timed by events on its stream (what an application's stream of launches
// takes). Launch i uses operand set i % sets, so a cold rotation is walked in order.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

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

// Times every candidate that has a timer `rounds` times, `replays` graph replays each, in interleaved rounds that
// each start one candidate later, so drift hits them all alike: samples[i] holds candidate i's. `after_round`, when
// given, sees the samples after each round and may reset timers to stop timing a candidate (the tuner's early drop).
using Timers = std::vector<std::unique_ptr<GraphTimer>>;
std::vector<std::vector<double>> time_interleaved(Timers& timers, int rounds, int replays,
                                                  const std::function<void(const std::vector<std::vector<double>>&)>&
                                                      after_round = {});

// Microseconds per launch of `launches` back-to-back launches from the host, timed by events on the stream. One
// launch of the last set runs first, so the timed launches queue behind work already on the GPU: the time is what
// the stream of launches takes, gaps left where the host cannot keep ahead included, not the host's latency to its
// first launch or back from its last (which a host clock around the loop counts once a loop: 140-220 us on the
// peers' torch.mm loops, docs/notes/2026-12-03-host-path.md). bench/peers/harness.py times the peers alike.
double time_host_loop(const Launch& launch, int launches, int sets, cudaStream_t stream);

}  // namespace tilewise::device
