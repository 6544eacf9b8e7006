#pragma once
// The tuner's timing source on the GPU: the bench harness's protocol applied to one round's candidates. Per round:
// every candidate built first (in parallel), each checked by the harness's correctness gate (C poisoned, judged
// against the fp32 reference), the incumbent's graph replayed to re-warm the chip on the problem's own work, then
// the correct ones timed by CUDA-graph replay in interleaved repeats, their order rotated each repeat, so clock drift
// under the power cap hits every candidate alike and their ranges compare (tune::strictly_faster). A candidate that a
// repeat rules out against the incumbent is timed no further.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "device/cuda.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/family.hpp"
#include "tune/measure.hpp"

namespace tilewise::bench {

struct TuneMeasureOptions {
  int repeats = 10;               // samples per candidate, one per interleaved repeat
  int replays = 3;                // timed graph replays per sample (their median)
  double graph_target_ms = 1.0;   // about how long one graph replay runs
  double warmup_s = 10.0;         // the sustained-GEMM warm-up before the first round (bench/heater.hpp)
  double rewarm_ms = 100.0;       // the incumbent's graph replayed before each chunk's repeats
  bool cold = false;              // rotate buffer sets covering 4x the L2, as `bench --cold`
  // Candidates built, checked and timed together. A whole grid's loaded modules and graphs would not fit at once; the
  // first candidate (the incumbent) is timed in every chunk, and each candidate is judged against it there
  // (tune::Timing::incumbent_us): rescaling later chunks by its medians let the chunk whose scale erred low pick
  // winners that did not reproduce (llm24, cuBLASLt's 265-candidate kernel round: wideN fp16 TN's winner was 1.12x
  // by the campaign, 1.00x in `bench`).
  int chunk = 48;
  uint64_t seed = 1;              // operand fills, per problem from this and the problem's description
  // A candidate this fraction or more over the incumbent in one repeat is timed no further (tune::ruled_out); a
  // negative margin times every candidate in every repeat.
  double drop_margin = 0.10;
  // Told, after each round, where its wall time went (building, checking and sizing, timing), for the progress
  // display; may be empty.
  std::function<void(const std::string&)> progress;
};

class TuneMeasure : public tune::Measure {
 public:
  // Needs a GPU (throws Error naming what works without one). Every family of the registry (families/registry.hpp).
  explicit TuneMeasure(const TuneMeasureOptions& o);
  ~TuneMeasure() override;

  // Throws Error for a case that cannot be measured at all (unknown family, operands that do not fit, a CUDA error
  // that leaves the context unusable); a candidate's own failure is its Timing's error.
  std::vector<tune::Timing> measure(const tune::Case& c, const std::vector<tune::Config>& candidates) override;

  // What the families build with here: the SM count, and the one cuBLASLt handle and 64 MiB workspace, so that the
  // cuBLASLt space's checks see the same bound as its kernels.
  families::Resources resources() const;

 private:
  struct CaseState;
  CaseState& state_for(const tune::Case& c);
  struct Spent {  // one round's wall time, by phase
    double build_s = 0, check_s = 0, time_s = 0;
  };
  void time_chunk(const tune::Case& c, const std::vector<tune::Config>& candidates, const std::vector<size_t>& which,
                  std::vector<tune::Timing>& out, Spent& spent);

  TuneMeasureOptions o_;
  int sm_count_ = 0;
  int64_t l2_bytes_ = 0;
  bool warmed_ = false;
  std::unique_ptr<device::Stream> stream_;
  std::unique_ptr<cublaslt::Context> cublaslt_;
  std::unique_ptr<CaseState> case_;  // operands and reference of the problem measured last, kept across rounds
};

}  // namespace tilewise::bench
