#include "families/cublaslt/family.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/cublaslt/arms.hpp"
#include "families/cublaslt/matmul.hpp"
#include "families/cublaslt/space.hpp"
#include "families/cublaslt/tuning.hpp"

namespace tilewise::cublaslt {

namespace {

// One configuration on a problem's descriptors, which several kernels of one problem share.
class MatmulKernel : public families::Kernel {
 public:
  MatmulKernel(std::shared_ptr<const Matmul> m, const Candidate& c)
      : families::Kernel(to_string(c.config)), m_(std::move(m)), candidate_(c) {}
  void run(const void* A, const void* B, void* C, cudaStream_t s) override { m_->run(candidate_, A, B, C, s); }

 private:
  std::shared_ptr<const Matmul> m_;
  Candidate candidate_;
};

const Context& vendor_context(const families::Resources& r) {
  if (!r.vendor) throw Error("a cuBLASLt kernel needs cuBLASLt's handle and workspace, and none was given");
  return r.vendor();
}

class Cublaslt : public families::Family {
 public:
  std::string_view name() const override { return kName; }
  std::string canonical(std::string_view config) const override { return to_string(parse_config(config)); }
  std::string describe(std::string_view config) const override { return cublaslt::describe(parse_config(config)); }
  std::vector<std::string> field_names() const override { return keys(cublaslt::tuner_fields(Config{})); }

  // Only cuBLASLt knows which of its configurations run a problem: it is asked when the kernel is built.
  std::optional<std::string> infeasible(std::string_view config, const Problem&, int) const override {
    parse_config(config);
    return std::nullopt;
  }

  std::optional<std::string> rule(const Problem&, int) const override { return std::nullopt; }

  // An empty configuration is the heuristic's first candidate (what cublaslt-default and torch.mm run); the kernel
  // then names the configuration it chose.
  std::unique_ptr<families::Kernel> build(const Problem& p, std::string_view config,
                                          const families::Resources& r) const override {
    auto m = std::make_shared<const Matmul>(vendor_context(r), p);
    if (config.empty()) return std::make_unique<MatmulKernel>(m, m->heuristic(32).front());  // Unsupported if none
    return std::make_unique<MatmulKernel>(m, resolve(*m, parse_config(config), offered(*m)));
  }
  // One problem's descriptors and heuristic answer for every configuration.
  std::vector<families::Built> build_all(const Problem& p, const std::vector<std::string>& configs,
                                         const families::Resources& r) const override {
    auto m = std::make_shared<const Matmul>(vendor_context(r), p);
    const std::vector<Candidate> heuristic = offered(*m);
    std::vector<families::Built> out(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) try {
        out[i].kernel = std::make_unique<MatmulKernel>(m, resolve(*m, parse_config(configs[i]), heuristic));
      } catch (const Error& e) {
        out[i].error = e.what();
      }
    return out;
  }

  families::Tunable tunable(const Problem& p, const families::Resources& r,
                            const std::optional<std::string>& start) const override {
    return cublaslt::tunable(vendor_context(r), p, start ? std::optional<Config>(parse_config(*start)) : std::nullopt);
  }

  std::vector<std::string> arm_names() const override { return cublaslt::arm_names(); }
  std::unique_ptr<families::Arm> make_arm(const std::string& name) const override { return cublaslt::make_arm(name); }
};

}  // namespace

const families::Family& family() {
  static const Cublaslt f;
  return f;
}

}  // namespace tilewise::cublaslt
