#include "bench/runner.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include "bench/arm.hpp"
#include "bench/heater.hpp"
#include "core/suite.hpp"
#include "device/clocks.hpp"
#include "device/machine.hpp"
#include "device/plain_read.hpp"
#include "jit/cache.hpp"
#include "kernels/random.h"
#include "receipt/check.hpp"
#include "receipt/derive.hpp"
#include "receipt/verdict.hpp"
#include "tilewise_version.hpp"

namespace tilewise::bench {

std::vector<std::string> input_files(const Options& o) {
  std::vector<std::string> out = o.suites;
  if (o.preregistration) out.push_back(o.preregistration->path);
  for (const std::string& a : o.arms)
    for (std::string& file : make_arm(a)->inputs()) out.push_back(std::move(file));
  return out;
}

namespace {

using Interval = std::pair<double, double>;

using Case = SuiteCase;

std::vector<Case> plan_cases(const Options& o) { return expand_suites(o.suites, o.only, o.dtypes, o.layouts); }

void check_options(const Options& o) {
  if (o.suites.empty()) throw Error("give at least one suite (--suite FILE)");
  if (o.repeats < 1) throw Error(fmt::format("--repeats {} must be at least 1", o.repeats));
  if (o.replays < 1) throw Error(fmt::format("--replays {} must be at least 1", o.replays));
  if (o.selection_rounds < 1)
    throw Error(fmt::format("--selection-rounds {} must be at least 1", o.selection_rounds));
  if (o.pad < 0) throw Error(fmt::format("--pad {} must not be negative", o.pad));
  if (o.arms.empty()) throw Error("give at least one arm (--arms)");
  std::set<std::string> seen;
  for (const std::string& a : o.arms) {
    make_arm(a);  // throws for an unknown name
    if (!seen.insert(a).second) throw Error(fmt::format("arm '{}' is given twice", a));
  }
  if (!o.baseline.empty() && !seen.count(o.baseline))
    throw Error(fmt::format("baseline arm '{}' is not among the arms", o.baseline));
  if (o.output.empty()) throw Error("give the receipt's path (-o FILE)");
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

// Everything measured for one arm on one problem while its repeats run.
struct ArmRun {
  std::unique_ptr<Arm> arm;
  receipt::ArmResult result;
  std::unique_ptr<device::GraphTimer> timer;
  std::vector<Interval> timed;
  int sets = 0;                                   // buffer sets it is timed over (the arm's own, or the operands')
  std::unique_ptr<device::Reference> reference;  // its own, when it computes with weights of its own
  // A plain read of the arm's weight bytes over its rotation, timed beside it (device/plain_read.hpp).
  std::unique_ptr<device::PlainRead> plain;
  std::unique_ptr<device::GraphTimer> plain_timer;
};

class Runner {
 public:
  Runner(const Options& o, const ProgressFn& progress) : o_(o), progress_(progress) {}

  receipt::Receipt run() {
    check_options(o_);
    const std::vector<Case> cases = plan_cases(o_);
    device::require_gpu();
    TW_CUDA(cudaSetDevice(0));
    stream_ = std::make_unique<device::Stream>();
    device::Nvml nvml(device::pci_bus_id(0));
    device::ClockSampler sampler(nvml, std::chrono::milliseconds(10));
    sampler_ = &sampler;
    start_receipt(nvml);
    r_.clocks.before = sampler.sample_now();

    {
      // The heater warms the chip up once and is gone before the first problem: each problem re-warms on its own
      // work (rewarm below; bench/heater.hpp says why).
      Heater heater;
      const double begin = sampler.mark();
      r_.protocol.warmup_s = heater.run(o_.warmup_s, stream_->get());
      const double end = sampler.mark();
      r_.clocks.warmup = receipt::summarize(sampler.samples_within({{(begin + end) / 2, end}}));
    }
    r_.machine.read_bw = device::measure_read_bandwidth(int64_t(4) << 30, 10, r_.machine.sm_count);
    r_.machine.read_bw_gbps = receipt::read_bw_gbps(r_.machine.read_bw);

    for (const Case& c : cases)
      r_.protocol.planned.push_back({c.entry.name, std::string(to_string(c.dtype)), std::string(to_string(c.layout))});
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string skipped = run_case(i, cases[i]);
      r_.clocks.during = receipt::summarize(during_);
      finish(i + 1 < cases.size() ? fmt::format("incomplete: {} of {} cases done", i + 1, cases.size()) : "");
      if (progress_) progress_(i + 1, cases.size(), skipped.empty() ? &r_.results.back() : nullptr, skipped);
    }
    r_.clocks.after = sampler.sample_now();
    finish("");
    return r_;
  }

 private:
  // Measures one case into the receipt; returns why it was skipped, or "" when it was measured.
  std::string run_case(size_t i, const Case& c) {
    const Problem p = make_problem(c, o_.pad);
    try {
      validate(p);
    } catch (const Error& e) {
      return skip(p, e.what(), false);  // a combination nothing supports (fp8 NN): not a fault of the run
    }
    try {
      r_.results.push_back(measure(p, kernels::splitmix64(r_.protocol.seed + i), orientation_of(c.suite, p.name)));
      r_.results.back().suite = c.suite;
      return "";
    } catch (const Unsupported& e) {
      return skip(p, e.what(), false);  // every arm's family declines the problem
    } catch (const Error& e) {
      return skip(p, e.what(), true);
    }
  }

  std::string skip(const Problem& p, const std::string& reason, bool fault) {
    r_.skipped.push_back({describe(p), reason});
    if (fault) failures_.push_back(fmt::format("{}: not measured: {}", describe(p), reason));
    return reason;
  }

  void start_receipt(const device::Nvml& nvml) {
    r_.created = utc_now();
    r_.command = o_.command;
    const jit::SourcesIdentity sources = jit::kernel_sources_identity();
    r_.tool = {"tilewise", build::version, build::commit, build::dirty, sources.digest, sources.folder};
    r_.machine = device::describe_machine(nvml);
    r_.clocks.available = nvml.available();
    r_.clocks.unavailable_reason = nvml.why_unavailable();
    receipt::Protocol& p = r_.protocol;
    p.repeats = o_.repeats;
    p.cold = o_.cold;
    p.working_set_bytes = o_.cold ? device::cold_working_set_bytes(r_.machine.l2_bytes) : 0;
    p.arms = o_.arms;
    p.baseline = o_.baseline;
    p.seed = o_.seed;
    p.graph_target_ms = o_.graph_target_ms;
    p.replays = o_.replays;
    p.selection_rounds = o_.selection_rounds;
    p.rewarm_ms = o_.rewarm_ms;
    r_.notes.push_back(fmt::format(
        "re-warm: the baseline arm's own graph ({}), replayed for {:g} ms before each problem's other arms are "
        "prepared and again before its timed repeats; the 8192^3 bf16 heater runs only for the initial warm-up",
        o_.baseline.empty() ? o_.arms[0] : o_.baseline, o_.rewarm_ms));
    r_.notes.push_back("order: in each arm's turn its host loop is timed first, then its graph replays");
  }

  receipt::Result measure(const Problem& p, uint64_t seed, Orientation orientation) {
    const cudaStream_t s = stream_->get();
    receipt::Result res;
    res.problem = p;
    res.seed = seed;
    res.rotation_sets = device::rotation_sets(p, o_.cold, r_.machine.l2_bytes);
    device::Operands ops(p, res.rotation_sets, device::Reference::bytes(p));
    res.working_set_bytes = ops.working_set_bytes();
    ops.fill(seed, s);
    const device::Reference ref(p, ops.set(0), s);
    res.reference = ref.check_fp64(ops.set(0));
    const Workbench wb{p,       ops,     ref, s, o_.graph_target_ms, o_.replays, o_.selection_rounds, o_.cold,
                       r_.machine.l2_bytes, orientation};

    // The re-warm is the problem's own work, the baseline arm's graph, never the heater (bench/heater.hpp says why),
    // so the baseline is prepared first (cublaslt-default: one heuristic query and one checked launch; it times
    // nothing). Its graph then re-warms twice: before the other arms are prepared, because `cublaslt` chooses by
    // timing its candidates and must do so at the clocks it is timed at, not those an idle gap (fills, reference,
    // fp64 check) left; and again right before the timed repeats, because preparing leaves gaps of its own. A
    // baseline that itself chooses by timing chooses at the clocks the previous problem left.
    const auto named = std::find(o_.arms.begin(), o_.arms.end(), o_.baseline);
    const size_t first = named == o_.arms.end() ? 0 : size_t(named - o_.arms.begin());  // no baseline: the first arm
    std::vector<ArmRun> runs(o_.arms.size());  // in o_.arms order, as the receipt lists them
    runs[first] = prepare(make_arm(o_.arms[first]), wb);
    rewarm(runs, first);
    for (size_t k = 0; k < runs.size(); ++k)
      if (k != first) runs[k] = prepare(make_arm(o_.arms[k]), wb);
    // An arm whose family does not take the problem (cuBLASLt has no fp8 kernel for M = 4, a gemv setting K does not
    // divide) is recorded as declined and the others are measured; only a problem every arm declines is skipped.
    if (std::all_of(runs.begin(), runs.end(), [](const ArmRun& r) { return !r.result.declined.empty(); })) {
      std::string why;
      for (const ArmRun& r : runs) why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", r.result.arm, r.result.declined);
      throw Unsupported(why);
    }
    rewarm(runs, first);
    for (int rep = 0; rep < o_.repeats; ++rep)
      for (size_t k = 0; k < runs.size(); ++k) {
        ArmRun& run = runs[(k + size_t(rep)) % runs.size()];  // rotate the order so drift hits every arm alike
        if (!run.timer) continue;
        const double t0 = sampler_->mark();
        // The host loop first: then every arm's timed replays follow its own launches, whatever arm ran before, as
        // a replay of some kernels runs at one of two speeds set by the work before it
        // (docs/notes/2026-12-05-timing-carryover.md).
        const device::Launch launch = [&](int set, cudaStream_t st) { run.arm->launch(set, st); };
        run.result.host_us.push_back(device::time_host_loop(launch, run.result.host_launches, run.sets, s));
        run.result.us.push_back(run.timer->measure(o_.replays));
        if (run.plain_timer) run.result.plain_read_us.push_back(run.plain_timer->measure(o_.replays));
        run.timed.emplace_back(t0, sampler_->mark());
      }
    for (ArmRun& run : runs) {
      receipt::derive(run.result, p, r_.machine.read_bw_gbps);
      const std::vector<receipt::ClockSample> samples = sampler_->samples_within(run.timed);
      run.result.clock = receipt::summarize(samples);
      during_.insert(during_.end(), samples.begin(), samples.end());
      res.arms.push_back(std::move(run.result));
    }
    const auto base = std::find_if(res.arms.begin(), res.arms.end(), [&](auto& a) { return a.arm == o_.baseline; });
    if (base != res.arms.end() && base->us_median)
      for (const receipt::ArmResult& a : res.arms)
        if (a.arm != o_.baseline && a.us_median) res.comparisons.push_back(receipt::compare(a, *base));
    r_.protocol.rotation_sets = std::max(r_.protocol.rotation_sets, res.rotation_sets);
    return res;
  }

  // Replays the baseline arm's graph (the first arm that has one, if the baseline failed) for rewarm_ms.
  void rewarm(const std::vector<ArmRun>& runs, size_t baseline) const {
    device::GraphTimer* timer = runs[baseline].timer.get();
    for (size_t k = 0; !timer && k < runs.size(); ++k) timer = runs[k].timer.get();
    if (timer) replay_for(*timer, o_.rewarm_ms / 1000.0);
  }

  ArmRun prepare(std::unique_ptr<Arm> arm, const Workbench& wb) {
    ArmRun run{std::move(arm), {}, nullptr, {}};
    receipt::ArmResult& r = run.result;
    r.arm = run.arm->name();
    r.bound = receipt::correctness_bound(wb.problem.dtype);
    try {
      run.arm->prepare(wb);
      r.config = run.arm->config();
      r.config_text = run.arm->config_text();
      r.candidates = run.arm->candidates();
      // An arm computing with weights of its own (a quantized GEMV) is judged against a reference from them, and
      // times over its own rotation of them.
      if (const device::Replaced w = run.arm->judged_weights(); w.rows) {
        run.reference = std::make_unique<device::Reference>(wb.problem, wb.operands.set(0), w, wb.stream);
        r.reference_check = run.reference->check_fp64(wb.operands.set(0));
      }
      r.reference = run.arm->reference_name();
      r.rotation_sets = run.arm->rotation_sets();
      r.working_set_bytes = run.arm->working_set_bytes();
      r.weight_bytes = run.arm->weight_bytes();
      run.sets = r.rotation_sets > 0 ? r.rotation_sets : wb.operands.count();
      const Workbench judged{wb.problem, wb.operands, run.reference ? *run.reference : wb.reference, wb.stream,
                             wb.graph_target_ms, wb.replays, wb.selection_rounds, wb.cold, wb.l2_bytes, wb.orientation};
      const device::Launch launch = [&a = *run.arm](int set, cudaStream_t st) { a.launch(set, st); };
      const device::OutputError err = checked_run(judged, launch);
      r.rel_err = err.rel_err;
      r.max_abs_err = err.max_abs_err;
      r.correct = receipt::is_correct(err.rel_err, r.bound);
      if (!r.correct) return run;  // an incorrect arm is never timed
      run.timer = device::sized_graph_timer(launch, run.sets, o_.graph_target_ms, wb.stream);
      r.launches = r.host_launches = run.timer->launches();
      if (r.weight_bytes > 0) {
        run.plain = std::make_unique<device::PlainRead>(r.weight_bytes, run.sets, r_.machine.sm_count, wb.stream,
                                                        /*dependent=*/true);
        run.plain_timer = device::sized_graph_timer(run.plain->launch(), run.sets, o_.graph_target_ms, wb.stream);
      }
    } catch (const Unsupported& e) {
      r.declined = e.what();
    } catch (const Error& e) {
      r.error = e.what();
      r.correct = false;
    }
    return run;
  }

  // Fills in the checker's verdict and writes the receipt, so an interrupted run leaves a readable (invalid) one.
  void finish(const std::string& incomplete) {
    r_.preregistration = o_.preregistration;
    if (r_.preregistration)
      for (receipt::Prediction& p : r_.preregistration->predictions) receipt::judge(p, r_);
    r_.problems = failures_;
    if (!incomplete.empty()) r_.problems.push_back(incomplete);
    r_.valid = r_.problems.empty();
    for (std::string& p : receipt::check(nlohmann::json(r_))) r_.problems.push_back(std::move(p));
    r_.valid = r_.problems.empty();
    receipt::write_file(r_, o_.output);
  }

  const Options& o_;
  const ProgressFn& progress_;
  receipt::Receipt r_;
  std::unique_ptr<device::Stream> stream_;
  device::ClockSampler* sampler_ = nullptr;
  std::vector<receipt::ClockSample> during_;  // every sample taken inside a timed region so far
  std::vector<std::string> failures_;        // cases that could not be measured
};

}  // namespace

std::vector<Problem> planned_problems(const Options& o) {
  std::vector<Problem> out;
  for (const Case& c : plan_cases(o)) out.push_back(make_problem(c, o.pad));  // as run_case makes each
  return out;
}

receipt::Receipt run(const Options& options, const ProgressFn& progress) { return Runner(options, progress).run(); }

}  // namespace tilewise::bench
