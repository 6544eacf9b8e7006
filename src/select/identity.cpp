#include "select/identity.hpp"

#include <fmt/format.h>

#include <utility>

namespace tilewise::select {

using nlohmann::json;

namespace {

// One list of the text fields, so comparison, writing and reading cannot drift apart.
const std::pair<const char*, std::string Identity::*> kText[] = {
    {"gpu", &Identity::gpu},           {"cc", &Identity::cc},       {"driver", &Identity::driver},
    {"cuda_runtime", &Identity::cuda_runtime}, {"cublaslt", &Identity::cublaslt}, {"nvrtc", &Identity::nvrtc},
    {"tilewise", &Identity::tilewise}};

}  // namespace

Identity identity_of(const receipt::Machine& m, std::string tilewise_version) {
  return Identity{m.gpu, m.sm_count, m.cc, m.driver, m.cuda_runtime, m.cublaslt, m.nvrtc, std::move(tilewise_version)};
}

std::optional<std::string> mismatch(const Identity& a, const Identity& b, std::string_view a_is,
                                    std::string_view b_is) {
  std::string out;
  const auto add = [&](std::string_view name, const std::string& x, const std::string& y) {
    if (x != y) out += fmt::format("{}{}: '{}' {}, '{}' {}", out.empty() ? "" : "; ", name, x, a_is, y, b_is);
  };
  add("gpu", a.gpu, b.gpu);
  add("sm_count", std::to_string(a.sm_count), std::to_string(b.sm_count));
  for (const auto& [name, field] : kText)
    if (std::string_view(name) != "gpu") add(name, a.*field, b.*field);
  if (out.empty()) return std::nullopt;
  return out;
}

json to_json(const Identity& id) {
  json j = json::object();
  for (const auto& [name, field] : kText) j[name] = id.*field;
  j["sm_count"] = id.sm_count;
  return j;
}

Identity parse_identity(const At& at) {
  Identity id;
  for (const auto& [name, field] : kText) id.*field = at[name].string();
  id.sm_count = int(at["sm_count"].integer());
  return id;
}

}  // namespace tilewise::select
