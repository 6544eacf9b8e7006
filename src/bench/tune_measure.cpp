#include "bench/tune_measure.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <stdexcept>

#include "bench/arm.hpp"
#include "bench/heater.hpp"
#include "device/reference.hpp"
#include "families/registry.hpp"
#include "receipt/derive.hpp"

namespace tilewise::bench {

struct TuneMeasure::CaseState {
  Problem problem;
  std::unique_ptr<device::Operands> operands;
  std::unique_ptr<device::Reference> reference;
};

namespace {

uint64_t case_seed(uint64_t seed, const std::string& problem) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char ch : problem) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// A candidate that failed may have left the context unusable (an illegal address is sticky): then nothing after it
// can be measured in this process. Not a tilewise::Error, so a campaign stops here instead of failing every case
// after it; rerun, it continues where it stopped.
void require_usable_context() {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    throw std::runtime_error(fmt::format("the CUDA context is unusable after a candidate failed ({}); rerun the "
                                         "campaign to continue where it stopped",
                                         cudaGetErrorString(e)));
}

std::string incorrect(const device::OutputError& err, double bound) {
  if (!err.rel_err) return fmt::format("incorrect: {} non-finite output elements", err.non_finite);
  return fmt::format("incorrect: relative error {:.3g} over the bound {:.3g}", *err.rel_err, bound);
}

}  // namespace

TuneMeasure::TuneMeasure(const TuneMeasureOptions& o) : o_(o) {
  if (o_.repeats < 1 || o_.replays < 1) throw Error("tuning needs at least one repeat and one replay");
  device::require_gpu();
  TW_CUDA(cudaSetDevice(0));
  int l2 = 0;
  TW_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  sm_count_ = device::sm_count();
  l2_bytes_ = l2;
  stream_ = std::make_unique<device::Stream>();
  cublaslt_ = std::make_unique<cublaslt::Context>();
}

TuneMeasure::~TuneMeasure() = default;

families::Resources TuneMeasure::resources() const {
  return {sm_count_, [this]() -> const cublaslt::Context& { return *cublaslt_; }};
}

TuneMeasure::CaseState& TuneMeasure::state_for(const tune::Case& c) {
  // Keyed by the problem, not the case: every family's case of one problem runs on the same buffers and data
  // (input data moves the power-capped rate by up to 10%), so their database times are as comparable as they can be.
  if (case_ && case_->problem == c.problem) return *case_;
  case_.reset();  // the last case's buffers go before this one's are allocated
  validate(c.problem);
  auto s = std::make_unique<CaseState>();
  s->problem = c.problem;
  const cudaStream_t st = stream_->get();
  s->operands = std::make_unique<device::Operands>(c.problem, device::rotation_sets(c.problem, o_.cold, l2_bytes_),
                                                   device::Reference::bytes(c.problem));
  s->operands->fill(case_seed(o_.seed, describe(c.problem)), st);
  s->reference = std::make_unique<device::Reference>(c.problem, s->operands->set(0), st);
  if (const receipt::ReferenceCheck check = s->reference->check_fp64(s->operands->set(0)); !check.ok)
    throw Error(fmt::format("{}: the fp32 reference itself is off by {:.3g} (bound {:.3g}) in the fp64 check", c.id,
                            check.max_err, check.bound));
  case_ = std::move(s);
  return *case_;
}

std::vector<tune::Timing> TuneMeasure::measure(const tune::Case& c, const std::vector<tune::Config>& candidates) {
  if (!families::find_family(c.family))
    throw Error(fmt::format("{}: the tuner measures the families {}, not '{}'", c.id,
                            fmt::join(families::family_names(), ", "), c.family));
  std::vector<tune::Timing> out(candidates.size());
  if (candidates.empty()) return out;
  state_for(c);
  if (!warmed_) {
    Heater heater;
    heater.run(o_.warmup_s, stream_->get());
    warmed_ = true;
  }
  const size_t per = size_t(std::max(2, o_.chunk)) - 1;  // besides the first candidate
  Spent spent;
  size_t start = 1;
  do {
    std::vector<size_t> which{0};
    for (size_t i = start; i < std::min(candidates.size(), start + per); ++i) which.push_back(i);
    time_chunk(c, candidates, which, out, spent);
    start += per;
  } while (start < candidates.size());
  if (o_.progress) {
    int dropped = 0;
    for (const tune::Timing& t : out) dropped += t.dropped;
    o_.progress(fmt::format("built in {:.1f} s, checked and sized in {:.1f} s, timed in {:.1f} s ({} dropped)",
                            spent.build_s, spent.check_s, spent.time_s, dropped));
  }
  return out;
}

void TuneMeasure::time_chunk(const tune::Case& c, const std::vector<tune::Config>& candidates,
                             const std::vector<size_t>& which, std::vector<tune::Timing>& out, Spent& spent) {
  auto t = std::chrono::steady_clock::now();
  auto lap = [&t](double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double>(now - t).count();
    t = now;
  };
  const CaseState& s = *case_;
  const Problem& p = s.problem;
  const cudaStream_t st = stream_->get();
  const bool first_chunk = which.size() < 2 || which[1] == 1;
  std::vector<std::string> subset;
  for (size_t i : which) subset.push_back(tune::to_string(candidates[i]));
  // Every candidate built first (the JIT compiles them on every core), each launched on the operand set it is given.
  const std::vector<families::Built> built = families::family(c.family).build_all(p, subset, resources());
  std::vector<device::Launch> launches(built.size());
  for (size_t j = 0; j < built.size(); ++j)
    if (families::Kernel* kernel = built[j].kernel.get())
      launches[j] = [kernel, &ops = *s.operands](int set, cudaStream_t st) {
        const device::OperandSet& o = ops.set(set);
        kernel->run(o.a.get(), o.b.get(), o.c.get(), st);
      };
  lap(spent.build_s);

  // The correctness gate of `bench`: an incorrect candidate is never timed.
  const Workbench wb{p, *s.operands, *s.reference, st, o_.graph_target_ms, o_.replays, 1, o_.cold, l2_bytes_};
  const double bound = receipt::correctness_bound(p.dtype);
  device::Timers timers(built.size());
  for (size_t j = 0; j < built.size(); ++j) {
    std::string error = built[j].error;
    if (built[j].kernel) {
      try {
        const device::OutputError err = checked_run(wb, launches[j]);
        if (receipt::is_correct(err.rel_err, bound))
          timers[j] = device::sized_graph_timer(launches[j], s.operands->count(), o_.graph_target_ms, st);
        else
          error = incorrect(err, bound);
      } catch (const Error& e) {
        error = e.what();
        require_usable_context();
      }
    }
    if (j == 0 && !first_chunk) continue;  // the anchor's record is its first chunk's
    out[which[j]].compiled = built[j].kernel != nullptr;
    out[which[j]].error = error;
  }

  // Re-warm on the problem's own work (bench/heater.hpp says why): the incumbent's graph, else the first one timed.
  device::GraphTimer* warm = nullptr;
  for (size_t j = 0; !warm && j < timers.size(); ++j) warm = timers[j].get();
  if (warm) replay_for(*warm, o_.rewarm_ms / 1000.0);

  lap(spent.check_s);

  // A candidate whose repeat is past the incumbent's of the same round by the drop margin is timed no more.
  std::vector<bool> dropped(built.size(), false);
  const auto drop = [&](const std::vector<std::vector<double>>& samples) {
    if (o_.drop_margin < 0 || !timers[0]) return;
    for (size_t j = 1; j < built.size(); ++j)
      if (timers[j] && tune::ruled_out(samples[j].back(), samples[0].back(), o_.drop_margin)) {
        timers[j].reset();
        dropped[j] = true;
      }
  };
  const std::vector<std::vector<double>> samples = device::time_interleaved(timers, o_.repeats, o_.replays, drop);
  lap(spent.time_s);

  // As measured; a later chunk's candidates carry the incumbent's samples from their own repeats to be judged by.
  for (size_t j = 0; j < built.size(); ++j) {
    if (j == 0 && !first_chunk) continue;
    out[which[j]].us = samples[j];
    out[which[j]].dropped = dropped[j];
    if (!first_chunk) out[which[j]].incumbent_us = samples[0];
  }
}

}  // namespace tilewise::bench
