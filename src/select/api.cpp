#include "select/api.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "device/cuda.hpp"
#include "device/machine.hpp"
#include "families/cublaslt/matmul.hpp"
#include "select/database_file.hpp"
#include "select/machine_database.hpp"
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

Context::Context(ContextOptions o) {
  device::require_gpu();
  sm_count_ = device::sm_count();
  identity_ = running_identity();
  tune_ = o.tune ? *o.tune : tune_mode_from_environment();
  first_use_ = o.first_use;
  serve_buckets_ = o.serve_buckets;
  const auto keep = [&](select::Usable u) {
    warnings_.insert(warnings_.end(), u.warnings.begin(), u.warnings.end());
    warnings_.insert(warnings_.end(), u.refused.begin(), u.refused.end());
    return u.db.records.empty() ? nullptr : std::make_unique<select::Database>(std::move(u.db));
  };
  if (o.use_machine_database || tune_ != TuneMode::off) {
    machine_path_ = o.machine_database;
    if (machine_path_.empty()) try {
        machine_path_ = select::machine_database_path();
      } catch (const Error&) {
        if (tune_ == TuneMode::on) throw;  // tuning needs somewhere to keep what it finds; selection does not
      }
    if (o.use_machine_database && !machine_path_.empty() && std::filesystem::exists(machine_path_))
      machine_ = keep(select::usable_entries(select::read_database(machine_path_), identity_, machine_path_));
  }
  if (!o.database.empty()) {
    select::Loaded loaded = select::load_database(o.database, identity_, o.allow_foreign);
    user_ = std::make_unique<select::Database>(std::move(loaded.db));
    overridden_ = std::move(loaded.overridden);
    warnings_.insert(warnings_.end(), loaded.warnings.begin(), loaded.warnings.end());
  }
  if (o.shipped_database) shipped_ = keep(select::shipped_database_for(identity_));
  if (!o.floor.empty()) floor_ = select::read_floor(o.floor);
}

Context::~Context() = default;

bool Context::has_database() const { return machine_ || user_ || shipped_; }

const select::FirstUse* Context::tuned(const Problem& p) const {
  const auto it = tuned_.find(key_of(p));
  return it == tuned_.end() ? nullptr : &it->second;
}

const cublaslt::Context& Context::vendor() {
  if (!vendor_) vendor_ = std::make_unique<cublaslt::Context>();  // its 64 MiB workspace only when cuBLASLt runs
  return *vendor_;
}

select::Rules Context::rules() const {
  return {sm_count_, floor_ ? &*floor_ : nullptr, &identity_, serve_buckets_};
}

std::vector<const select::Database*> Context::databases() const { return {machine_.get(), user_.get(), shipped_.get()}; }

select::Choice Context::choose(const Problem& p) const { return select::choose(databases(), p, rules()); }

std::unique_ptr<Plan> Context::make(const Problem& p, const select::Choice& c) {
  return select::make_plan(p, c, [this]() -> const cublaslt::Context& { return vendor(); }, sm_count_);
}

std::unique_ptr<Plan> Context::build(const Problem& p, select::Choice c) {
  try {
    return make(p, c);
  } catch (const Unsupported&) {
    if (c.source == "heuristic") throw;  // cuBLASLt's own heuristic declined: no family runs p
    if (c.source == "floor") return build(p, select::vendor_choice());  // the floor never insists
    throw;
  } catch (const Error& e) {
    if (c.source == "heuristic") throw;
    // A measured entry that does not run is a broken database (or floor), never a silent fall back.
    throw Error(fmt::format("the {}'s {} entry {} for {} does not run here: {}", c.source, c.family, c.config,
                            describe(p), e.what()));
  }
}

std::unique_ptr<Plan> Context::select_plan(const Problem& p, bool capturing) {
  for (const select::Database* db : databases())
    if (db)
      if (auto hit = select::from_database(*db, p)) return build(p, *hit);
  if (tune_ == TuneMode::on && !capturing) return tune_plan(p);
  if (serve_buckets_ && !capturing)  // a bucket's entry serves only once checked correct for p, which launches work
    for (const select::Database* db : databases())
      if (db)
        for (const select::Choice& c : select::bucket_choices(*db, p, sm_count_)) try {
            std::unique_ptr<Plan> plan = make(p, c);
            if (!select::check_plan(p, *plan)) return plan;
          } catch (const Error&) {  // infeasible here after all (cuBLASLt's own check): the next one
          }
  return build(p, select::heuristic_choice(p, rules()));
}

std::unique_ptr<Plan> Context::tune_plan(const Problem& p) {
  std::vector<std::string> vendor_configs;
  try {
    for (const cublaslt::Candidate& c : cublaslt::Matmul(vendor(), p).heuristic(8))
      vendor_configs.push_back(cublaslt::to_string(c.config));
  } catch (const Unsupported&) {
  }
  std::vector<select::Choice> bucket;
  for (const select::Database* db : databases())
    if (db)
      for (select::Choice& c : select::bucket_choices(*db, p, sm_count_)) bucket.push_back(std::move(c));
  const std::vector<select::Choice> candidates = select::first_use_candidates(p, bucket, vendor_configs, sm_count_);
  select::FirstUse result = select::tune_first_use(
      p, candidates,
      [&](const select::Choice& c) { return make(p, c); },
      first_use_);
  select::record_tuned(machine_path_, identity_, p, result.winner, result.summary());
  std::unique_ptr<Plan> plan = std::move(result.plan);
  tuned_.emplace(key_of(p), std::move(result));
  return plan;
}

Plan& Context::plan(const Problem& p, cudaStream_t stream) {
  const Key key = key_of(p);
  if (auto it = plans_.find(key); it != plans_.end()) return *it->second;
  validate(p);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TW_CUDA(cudaStreamIsCapturing(stream, &capture));
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  if (tune_ == TuneMode::record) select::record_signature(select::recorded_suite_path(), p);
  return *plans_.emplace(key, select_plan(p, capturing)).first->second;
}

std::unique_ptr<Plan> Context::plan_for(const Problem& p, const select::Choice& c) {
  validate(p);
  return build(p, c);
}

const select::Choice& gemm(Context& ctx, const Problem& p, const void* A, const void* B, void* C, cudaStream_t stream) {
  Plan& plan = ctx.plan(p, stream);
  plan.run(A, B, C, stream);
  return plan.choice();
}

}  // namespace tilewise
