#include "families/family.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace tilewise::families {

std::vector<Built> Family::build_all(const Problem& p, const std::vector<std::string>& configs,
                                     const Resources& r) const {
  std::vector<Built> out(configs.size());
  std::vector<jit::KernelBuild> builds;
  for (size_t i = 0; i < configs.size(); ++i) try {
      if (const auto why = infeasible(configs[i], p, r.sm_count)) {
        out[i].error = *why;
        continue;
      }
      for (Instantiation& in : instantiations(p, configs[i])) builds.push_back(std::move(in.build));
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  // build_all rethrows only its first failure after finishing the rest, so the builds below find every success in
  // the cache and meet each failure again with its own message.
  try {
    jit::build_all(builds);
  } catch (const Error&) {
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!out[i].error.empty()) continue;
    try {
      out[i].kernel = build(p, configs[i], r);
    } catch (const Error& e) {
      out[i].error = e.what();
    }
  }
  return out;
}

std::optional<std::string> recorded_text(const nlohmann::json& arm_config, const char* key, const Family& family) {
  if (!arm_config.is_object()) return std::nullopt;
  const auto it = arm_config.find(key);
  if (it == arm_config.end() || !it->is_string()) return std::nullopt;
  return family.canonical(it->get<std::string>());
}

}  // namespace tilewise::families
