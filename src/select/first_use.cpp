#include "select/first_use.hpp"

#include <fmt/format.h>

#include <chrono>

#include "device/operands.hpp"
#include "device/reference.hpp"
#include "device/timing.hpp"
#include "families/registry.hpp"
#include "receipt/derive.hpp"

namespace tilewise::select {

namespace {

uint64_t seed_of(const Problem& p) {  // FNV-1a of the signature: the same operands for the same problem every time
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : describe(p)) h = (h ^ ch) * 1099511628211ull;
  return h;
}

int64_t l2_bytes() {
  int l2 = 0;
  TW_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  return l2;
}

// One problem's operands and fp32 reference, and the gate every candidate passes before it is timed. Cold, as the
// harness's --cold: enough rotating sets that every launch streams its operands from HBM, as a model's weights are;
// timed warm, a candidate that won by 10% in L2 lost by 10% in `bench --cold` (docs/notes/2026-12-02-first-use.md).
struct Bench {
  device::Stream stream;
  device::Operands operands;
  std::unique_ptr<device::Reference> reference;

  Bench(const Problem& p, bool cold)
      : operands(p, cold ? device::rotation_sets(p, true, l2_bytes()) : 1, device::Reference::bytes(p)) {
    operands.fill(seed_of(p), stream.get());
    reference = std::make_unique<device::Reference>(p, operands.set(0), stream.get());
  }

  std::optional<std::string> check(const Problem& p, Plan& plan) {
    const device::OperandSet& o = operands.set(0);
    operands.poison_output(0, stream.get());
    plan.run(o.a.get(), o.b.get(), o.c.get(), stream.get());
    const device::OutputError err = reference->compare(o.c.get(), stream.get());
    const double bound = receipt::correctness_bound(p.dtype);
    if (receipt::is_correct(err.rel_err, bound)) return std::nullopt;
    if (!err.rel_err) return fmt::format("incorrect: {} non-finite output elements", err.non_finite);
    return fmt::format("incorrect: relative error {:.3g} over the bound {:.3g}", *err.rel_err, bound);
  }
};

std::string label(const Choice& c, size_t i) {
  if (i == 0) return c.family + " default";
  return fmt::format("{} {}", c.family, c.source == "floor" ? "rule" : c.source == "bucket" ? "bucket" : "#" + std::to_string(i));
}

}  // namespace

std::string FirstUse::summary() const {
  int ran = 0;
  std::string list;
  for (size_t i = 0; i < timed.size(); ++i) {
    if (timed[i].us) ++ran;
    list += fmt::format("{}{}: {}", i ? ", " : "", label(timed[i].choice, i),
                        timed[i].us ? fmt::format("{:.2f} us", *timed[i].us) : timed[i].error);
  }
  const double incumbent = timed.empty() || !timed[0].us ? 0 : *timed[0].us;
  return fmt::format("first use {:.2f} s, {} of {} timed ({} past the budget): {}; won {}{}", seconds, ran,
                     timed.size() + size_t(not_built), not_built, list, label(timed[winner_index].choice, winner_index),
                     incumbent > 0 ? fmt::format(" ({:.3f}x cublaslt default)", incumbent / winner.us) : "");
}

std::vector<Choice> first_use_candidates(const Problem& p, const std::vector<Choice>& bucket,
                                         const std::vector<std::string>& vendor_configs, int sm_count) {
  std::vector<Choice> out{vendor_choice()};
  const auto add = [&](Choice c) {
    for (const Choice& have : out)
      if (have.family == c.family && have.config == c.config) return;
    out.push_back(std::move(c));
  };
  for (const Choice& c : rule_choices(p, sm_count)) add(c);
  for (const Choice& c : bucket) add(c);
  for (size_t i = 1; i < vendor_configs.size(); ++i) add({out[0].family, vendor_configs[i], "heuristic", 0});
  for (const families::Family* f : families::all_families())
    for (std::string& c : f->rule_candidates(p, sm_count)) add({std::string(f->name()), std::move(c), "heuristic", 0});
  return out;
}

FirstUse tune_first_use(const Problem& p, const std::vector<Choice>& candidates, const PlanMaker& make,
                        const FirstUseOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Bench bench(p, /*cold=*/true);
  const device::Operands& operands = bench.operands;
  FirstUse out;
  std::vector<std::unique_ptr<Plan>> plans;
  device::Timers timers;
  for (size_t i = 0; i < candidates.size(); ++i) {
    // Building dominates (a kernel the JIT cache lacks compiles); timing the built ones is a few milliseconds.
    if (i > 0 && elapsed() > o.budget_s * 0.7) {
      out.not_built = int(candidates.size() - i);
      break;
    }
    Timed t{candidates[i], std::nullopt, ""};
    std::unique_ptr<Plan> plan;
    try {
      plan = make(candidates[i]);
      t.choice = plan->choice();  // cuBLASLt's default names its configuration
      if (const auto why = bench.check(p, *plan)) t.error = *why;
    } catch (const Error& e) {  // Unsupported included: an infeasible candidate is not timed
      t.error = e.what();
      plan.reset();
    }
    Plan* raw = plan.get();
    timers.push_back(raw && t.error.empty()
                         ? device::sized_graph_timer(
                               [&operands, raw](int i, cudaStream_t s) {
                                 const device::OperandSet& set = operands.set(i);
                                 raw->run(set.a.get(), set.b.get(), set.c.get(), s);
                               },
                               operands.count(), o.graph_ms, bench.stream.get())
                         : nullptr);
    plans.push_back(std::move(plan));
    out.timed.push_back(std::move(t));
  }
  if (timers[0]) timers[0]->measure(3);  // the incumbent re-warms the clocks on the problem's own work
  const std::vector<std::vector<double>> samples = device::time_interleaved(timers, o.repeats, 1);
  std::optional<size_t> best;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].empty()) continue;
    out.timed[i].us = receipt::median(samples[i]);
    const bool eligible = i == 0 || samples[0].empty() ||
                          (receipt::strictly_faster(samples[i], samples[0]) &&
                           receipt::median(samples[i]) * (1 + o.margin) <= receipt::median(samples[0]));
    if (eligible && (!best || *out.timed[i].us < *out.timed[*best].us)) best = i;
  }
  out.seconds = elapsed();
  if (!best) throw Unsupported(fmt::format("no candidate ran {} correctly on first use", describe(p)));
  out.winner_index = *best;
  out.winner = out.timed[*best].choice;
  out.winner.source = "first use";
  out.winner.us = *out.timed[*best].us;
  out.plan = std::move(plans[*best]);
  out.plan->chosen_by(out.winner.source, out.winner.us);
  return out;
}

std::optional<std::string> check_plan(const Problem& p, Plan& plan) {
  Bench bench(p, /*cold=*/false);
  return bench.check(p, plan);
}

}  // namespace tilewise::select
