#include "bench/selected_arm.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "families/cublaslt/config.hpp"
#include "families/gemv/config.hpp"
#include "families/sm90/config.hpp"
#include "select/api.hpp"

namespace tilewise::bench {

namespace {

// One library context per database for the whole run, as an application keeps one: the database is read once and
// the plans it builds are kept across problems.
Context& context_for(const std::string& database) {
  static std::map<std::string, std::unique_ptr<Context>> contexts;
  auto it = contexts.find(database);
  if (it == contexts.end()) it = contexts.emplace(database, std::make_unique<Context>(ContextOptions{database})).first;
  return *it->second;
}

std::string describe_config(const select::Choice& c) {
  if (c.family == "sm90") return sm90::describe(sm90::parse_config(c.config));
  if (c.family == "gemv") return gemv::describe(gemv::parse_config(c.config));
  if (c.family == "cublaslt") return cublaslt::describe(cublaslt::parse_config(c.config));
  return c.config;
}

class SelectedArm : public Arm {
 public:
  SelectedArm(std::string name, std::string database) : name_(std::move(name)), database_(std::move(database)) {}

  const std::string& name() const override { return name_; }

  void prepare(const Workbench& wb) override {
    ctx_ = &context_for(database_);
    problem_ = wb.problem;
    operands_ = &wb.operands;
    choice_ = ctx_->plan(problem_).choice();  // built here, so the checked run and the timers only launch
  }

  void launch(int set, cudaStream_t stream) const override {
    const device::OperandSet& o = operands_->set(set);
    gemm(*ctx_, problem_, o.a.get(), o.b.get(), o.c.get(), stream);
  }

  nlohmann::json config() const override {
    nlohmann::json j = {{"family", choice_.family}, {"config", choice_.config}, {"source", choice_.source}};
    j["database"] = database_.empty() ? nlohmann::json(nullptr) : nlohmann::json(database_);
    if (choice_.source == "database") j["database_us"] = choice_.us;
    if (!ctx_->overridden().empty()) j["identity_overridden"] = ctx_->overridden();
    return j;
  }
  std::string config_text() const override {
    return fmt::format("{} from the {}: {}", choice_.family, choice_.source, describe_config(choice_));
  }

 private:
  std::string name_, database_;
  Context* ctx_ = nullptr;
  Problem problem_;
  const device::Operands* operands_ = nullptr;
  select::Choice choice_;
};

}  // namespace

std::unique_ptr<Arm> make_selected_arm(const std::string& name) {
  if (name == "selected") return std::make_unique<SelectedArm>(name, "");
  if (name.starts_with("selected:")) {
    const std::string database = name.substr(std::string_view("selected:").size());
    if (!std::filesystem::exists(database)) throw Error(fmt::format("arm '{}': no database at '{}'", name, database));
    return std::make_unique<SelectedArm>(name, database);
  }
  return nullptr;
}

}  // namespace tilewise::bench
