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

namespace {

struct Difference {
  std::string_view field;
  std::string text;  // "gpu: 'NVIDIA H100' recorded, 'NVIDIA H200' running"
  const std::string *a = nullptr, *b = nullptr;  // the text fields' values; null for sm_count
};

std::vector<Difference> differences(const Identity& a, const Identity& b, std::string_view a_is,
                                    std::string_view b_is) {
  std::vector<Difference> out;
  const auto add = [&](std::string_view name, const std::string& x, const std::string& y, bool text) {
    if (x != y)
      out.push_back({name, fmt::format("{}: '{}' {}, '{}' {}", name, x, a_is, y, b_is), text ? &x : nullptr,
                     text ? &y : nullptr});
  };
  add("gpu", a.gpu, b.gpu, true);
  const std::string sa = std::to_string(a.sm_count), sb = std::to_string(b.sm_count);
  add("sm_count", sa, sb, false);
  for (const auto& [name, field] : kText)
    if (std::string_view(name) != "gpu") add(name, a.*field, b.*field, true);
  return out;
}

}  // namespace

std::optional<std::string> mismatch(const Identity& a, const Identity& b, std::string_view a_is,
                                    std::string_view b_is) {
  std::string out;
  for (const Difference& d : differences(a, b, a_is, b_is)) out += (out.empty() ? "" : "; ") + d.text;
  if (out.empty()) return std::nullopt;
  return out;
}

Compatibility compatibility(const Identity& recorded, const Identity& running) {
  const auto major = [](const std::string& version) { return version.substr(0, version.find('.')); };
  Compatibility out;
  for (const Difference& d : differences(recorded, running, "recorded", "running")) {
    const bool hard = d.field == "gpu" || d.field == "sm_count" || d.field == "cc" ||
                      (d.a == &recorded.cublaslt && major(*d.a) != major(*d.b));  // the library's major version
    (hard ? out.refuse : out.warn).push_back(d.text);
  }
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
  id.sm_count = at["sm_count"].sm_count();
  return id;
}

}  // namespace tilewise::select
