#include "bench/selected_arm.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "core/file.hpp"
#include "families/registry.hpp"
#include "select/api.hpp"
#include "select/floor.hpp"

namespace tilewise::bench {

namespace {

// What an arm name asks of the library; the environment (TILEWISE_TUNE, TILEWISE_DB) never changes an arm.
ContextOptions options_for(const std::string& name) {
  ContextOptions o;
  o.tune = TuneMode::off;
  o.use_machine_database = false;
  if (name == "selected") return o;  // the library's defaults: the shipped database where it holds, the floor
  o.shipped_database = false;
  const std::string rest = name.substr(std::string_view("selected:").size());
  if (rest == "floor") return o;
  if (rest.starts_with("floor:")) {  // a floor file (tilewise floor fit) in place of the one built into the library
    o.floor = rest.substr(std::string_view("floor:").size());
    return o;
  }
  if (rest.starts_with("tune:")) {
    o.tune = TuneMode::on;
    o.use_machine_database = true;
    o.machine_database = rest.substr(std::string_view("tune:").size());
    return o;
  }
  o.database = rest;
  return o;
}

// One library context per arm for the whole run, as an application keeps one: databases are read once and the plans
// built are kept across problems.
Context& context_for(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Context>> contexts;
  auto it = contexts.find(name);
  if (it == contexts.end()) it = contexts.emplace(name, std::make_unique<Context>(options_for(name))).first;
  return *it->second;
}

class SelectedArm : public Arm {
 public:
  explicit SelectedArm(std::string name) : name_(std::move(name)) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    ctx_ = &context_for(name_);
    problem_ = wb.problem;
    operands_ = &wb.operands;
    // Built here for the stream the runner launches on (a context keeps a plan per stream), so the checked run and
    // the timers only launch.
    choice_ = ctx_->plan(problem_, wb.stream).choice();
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set);
    gemm(*ctx_, problem_, o.a.get(), o.b.get(), o.c.get(), stream);
  }

  nlohmann::json config() const override {
    nlohmann::json j = {{"family", choice_.family}, {"config", choice_.config}, {"source", choice_.source}};
    if (const std::string floor = options_for(name_).floor; !floor.empty()) j["floor_file"] = floor;
    if (choice_.source == "database" || choice_.source == "bucket") j["database_us"] = choice_.us;
    if (const select::FirstUse* t = ctx_->tuned(problem_))
      j["first_use"] = {{"seconds", t->seconds}, {"timed", t->timed.size()}, {"summary", t->summary()}};
    if (!ctx_->overridden().empty()) j["identity_overridden"] = ctx_->overridden();
    if (!ctx_->warnings().empty()) j["identity_warnings"] = ctx_->warnings();
    return j;
  }
  std::string config_text() const override {
    return fmt::format("{} from the {}: {}", choice_.family, choice_.source,
                       families::family(choice_.family).describe(choice_.config));
  }
  std::vector<std::string> inputs() const override {
    const ContextOptions o = options_for(name_);
    std::vector<std::string> out;
    for (const std::string& file : {o.database, o.floor, o.machine_database})
      if (!file.empty()) out.push_back(file);
    return out;
  }

 private:
  std::string name_;
  Context* ctx_ = nullptr;
  Problem problem_;
  const device::Operands* operands_ = nullptr;
  select::Choice choice_;
};

}  // namespace

std::unique_ptr<Arm> make_selected_arm(const std::string& name) {
  if (name != "selected" && !name.starts_with("selected:")) return nullptr;
  const ContextOptions o = options_for(name);
  if (!o.database.empty() && !files::exists(o.database, "the arm's database"))
    throw Error(fmt::format("arm '{}': no database at '{}'", name, o.database));
  if (name.starts_with("selected:floor:")) {
    if (o.floor.empty() || !files::exists(o.floor, "the arm's floor"))
      throw Error(fmt::format("arm '{}': no floor at '{}'", name, o.floor));
    // Read here, not first on the GPU, where a bad file would fail every problem after the others were timed; once a
    // run, as the arm is made again for each problem.
    static std::set<std::string> read;
    if (!read.contains(o.floor)) try {
        select::read_floor(o.floor);
        read.insert(o.floor);
      } catch (const Error& e) {
        throw Error(fmt::format("arm '{}': {}", name, e.what()));
      }
  }
  if (o.tune == TuneMode::on && o.machine_database.empty())
    throw Error(fmt::format("arm '{}': name the database first-use tuning keeps (selected:tune:<file.json>)", name));
  return std::make_unique<SelectedArm>(name);
}

}  // namespace tilewise::bench
