#include "select/api.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/file.hpp"
#include "device/cuda.hpp"
#include "device/machine.hpp"
#include "families/cublaslt/matmul.hpp"
#include "select/context_state.hpp"
#include "select/database_file.hpp"
#include "select/machine_database.hpp"
#include "select/packed_crossover.hpp"
#include "select/shipped.hpp"
#include "tilewise_version.hpp"

namespace tilewise {

TuneMode tune_mode_from_environment() {
  const char* v = std::getenv("TILEWISE_TUNE");
  const std::string s = v ? v : "";
  if (s.empty() || s == "0" || s == "off") return TuneMode::off;
  if (s == "1" || s == "on") return TuneMode::on;
  if (s == "record") return TuneMode::record;
  throw Error(fmt::format("TILEWISE_TUNE='{}' is not one of 0, off, 1, on, record", s));
}

select::Identity running_identity() {
  device::require_gpu();
  device::Nvml nvml(device::pci_bus_id(0));
  return select::identity_of(device::describe_machine(nvml), build::version);
}

Context::Context(ContextOptions o) : s_(std::make_unique<State>()) {
  State& s = *s_;
  device::require_gpu();
  s.sm_count = device::sm_count();
  s.identity = running_identity();
  s.packed_crossover = select::crossover_measured_on(s.identity.gpu);
  s.tune = o.tune ? *o.tune : tune_mode_from_environment();
  s.first_use = o.first_use;
  s.serve_buckets = o.serve_buckets;
  const auto keep = [&](select::Usable u) {
    s.warnings.insert(s.warnings.end(), u.warnings.begin(), u.warnings.end());
    s.warnings.insert(s.warnings.end(), u.refused.begin(), u.refused.end());
    return u.db.records.empty() ? nullptr : std::make_unique<select::Database>(std::move(u.db));
  };
  if (o.use_machine_database || s.tune != TuneMode::off) {
    s.machine_path = o.machine_database;
    if (s.machine_path.empty()) try {
        s.machine_path = select::machine_database_path();
      } catch (const Error&) {
        if (s.tune == TuneMode::on) throw;  // tuning needs somewhere to keep what it finds; selection does not
      }
    if (o.use_machine_database && !s.machine_path.empty() && files::exists(s.machine_path, "the per-machine database (TILEWISE_DB)"))
      s.machine = keep(select::usable_entries(select::read_database(s.machine_path), s.identity, s.machine_path));
  }
  if (!o.database.empty()) {
    select::Loaded loaded = select::load_database(o.database, s.identity, o.allow_foreign);
    s.user = std::make_unique<select::Database>(std::move(loaded.db));
    s.overridden = std::move(loaded.overridden);
    s.warnings.insert(s.warnings.end(), loaded.warnings.begin(), loaded.warnings.end());
  }
  if (o.shipped_database) s.shipped = keep(select::shipped_database_for(s.identity));
  if (!o.floor.empty()) {
    s.floor = select::read_floor(o.floor);
    if (!select::holds_on(*s.floor, s.identity))  // said, as a database's refusal is: the floor then takes nothing
      s.warnings.push_back(fmt::format("floor {} was measured on {} ({} SMs, cc {}): it takes no family here", o.floor,
                                       s.floor->gpu, s.floor->sm_count, s.floor->cc));
  }
}

Context::~Context() = default;

bool Context::has_database() const { return s_->machine || s_->user || s_->shipped; }
TuneMode Context::tune_mode() const { return s_->tune; }
const std::vector<std::string>& Context::overridden() const { return s_->overridden; }
const std::vector<std::string>& Context::warnings() const { return s_->warnings; }
const select::Identity& Context::identity() const { return s_->identity; }

const select::FirstUse* Context::tuned(const Problem& p) const {
  const auto it = s_->tuned.find(State::key_of(p));
  return it == s_->tuned.end() ? nullptr : &it->second;
}

const cublaslt::Context& Context::State::vendor(cudaStream_t stream) {
  std::unique_ptr<cublaslt::Context>& v = vendors[stream];
  if (!v) v = std::make_unique<cublaslt::Context>();
  return *v;
}

device::StreamScratch& Context::State::scratch_of(cudaStream_t stream) {
  std::unique_ptr<device::StreamScratch>& s = scratch[stream];
  if (!s) s = std::make_unique<device::StreamScratch>();
  return *s;
}

select::Rules Context::State::rules() const { return {sm_count, floor ? &*floor : nullptr, &identity, serve_buckets}; }

std::vector<const select::Database*> Context::State::databases() const { return {machine.get(), user.get(), shipped.get()}; }

Choice Context::choose(const Problem& p) const {
  validate(p);  // what gemm would refuse has no choice
  return select::choose(s_->databases(), p, s_->rules());
}

std::unique_ptr<Plan> Context::State::make(const Problem& p, const select::Choice& c, cudaStream_t stream,
                                           device::StreamScratch* scratch) {
  families::Resources r;
  r.sm_count = sm_count;
  r.vendor = [this, stream]() -> const cublaslt::Context& { return vendor(stream); };
  r.scratch = scratch;
  return select::make_plan(p, c, r);
}

std::unique_ptr<Plan> Context::State::build(const Problem& p, select::Choice c, cudaStream_t stream,
                                            device::StreamScratch* scratch) {
  try {
    return make(p, c, stream, scratch);
  } catch (const Unsupported&) {
    if (c.source == "heuristic") {  // cuBLASLt declines p (fp8 at M = 4, say): a family of ours whose rule takes it
      for (const select::Choice& ours : select::rule_choices(p, sm_count))
        if (ours.family != c.family) try {
            return make(p, ours, stream, scratch);
          } catch (const Unsupported&) {
          }
      throw;
    }
    if (c.source == "floor") return build(p, select::vendor_choice(), stream, scratch);  // the floor never insists
    throw;
  } catch (const Error& e) {
    if (c.source == "heuristic") throw;
    // A measured entry that does not run is a broken database (or floor), never a silent fall back.
    throw Error(fmt::format("the {}'s {} entry {} for {} does not run here: {}", c.source, c.family, c.config,
                            describe(p), e.what()));
  }
}

std::unique_ptr<Plan> Context::State::select_plan(const Problem& p, cudaStream_t stream, bool capturing) {
  device::StreamScratch* scratch = &scratch_of(stream);
  for (const select::Database* db : databases())
    if (db)
      if (auto hit = select::from_database(*db, p)) return build(p, *hit, stream, scratch);
  // Tuning and a bucket's check run the candidates on a stream of their own, with this stream's cuBLASLt workspace
  // and stream-K scratch: whatever this stream still has queued on them finishes first.
  if ((tune == TuneMode::on || serve_buckets) && !capturing) TW_CUDA(cudaStreamSynchronize(stream));
  if (tune == TuneMode::on && !capturing) return tune_plan(p, stream);
  if (serve_buckets && !capturing)  // a bucket's entry serves only once checked correct for p, which launches work
    for (const select::Database* db : databases())
      if (db)
        for (const select::Choice& c : select::bucket_choices(*db, p, sm_count)) try {
            std::unique_ptr<Plan> plan = make(p, c, stream, scratch);
            if (!select::check_plan(p, *plan)) return plan;
          } catch (const Error&) {  // infeasible here after all (cuBLASLt's own check): the next one
          }
  return build(p, select::heuristic_choice(p, rules()), stream, scratch);
}

std::unique_ptr<Plan> Context::State::tune_plan(const Problem& p, cudaStream_t stream) {
  std::vector<std::string> vendor_configs;
  try {
    for (const cublaslt::Candidate& c : cublaslt::Matmul(vendor(stream), p).heuristic(8))
      vendor_configs.push_back(cublaslt::to_string(c.config));
  } catch (const Unsupported&) {
  }
  std::vector<select::Choice> bucket;
  for (const select::Database* db : databases())
    if (db)
      for (select::Choice& c : select::bucket_choices(*db, p, sm_count)) bucket.push_back(std::move(c));
  const std::vector<select::Choice> candidates = select::first_use_candidates(p, bucket, vendor_configs, sm_count);
  select::FirstUse result = select::tune_first_use(
      p, candidates, [&](const select::Choice& c) { return make(p, c, stream, &scratch_of(stream)); }, first_use);
  select::record_tuned(machine_path, identity, p, result.winner, result.summary());
  std::unique_ptr<Plan> plan = std::move(result.plan);
  tuned.emplace(key_of(p), std::move(result));
  return plan;
}

Plan& Context::plan(const Problem& p, cudaStream_t stream) {
  State& s = *s_;
  const State::Key key = State::key_of(p);
  if (auto it = s.plans.find({key, stream}); it != s.plans.end()) return *it->second;
  validate(p);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TW_CUDA(cudaStreamIsCapturing(stream, &capture));
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  const device::RelaxedCapture relaxed;
  std::unique_ptr<Plan> plan;
  if (auto chosen = s.chosen.find(key); chosen != s.chosen.end()) {
    plan = s.make(p, chosen->second, stream, &s.scratch_of(stream));  // another stream's choice, this one's scratch
  } else {
    if (s.tune == TuneMode::record) select::record_signature(select::recorded_suite_path(), p);
    plan = s.select_plan(p, stream, capturing);
    s.chosen.emplace(key, plan->choice());
  }
  return *s.plans.emplace(std::pair{key, stream}, std::move(plan)).first->second;
}

std::unique_ptr<Plan> Context::plan_for(const Problem& p, const Choice& c) {
  validate(p);
  return s_->build(p, c, nullptr, nullptr);  // its own stream-K scratch: it may run on any stream, and outlive ctx
}

const Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream) {
  Plan& plan = ctx.plan(p, stream);
  plan.run(A, B, C, stream);
  return plan.choice();
}

}  // namespace tilewise
