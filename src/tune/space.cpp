#include "tune/space.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace tilewise::tune {

Candidates candidates(const Group& g, const Config& incumbent, const Feasibility& infeasible, const Fit& fit) {
  Candidates out;
  out.configs.push_back(incumbent);
  std::vector<Config> asked{project(incumbent, g.fields)};
  for (const Config& alt : g.alternatives) {
    if (std::find(asked.begin(), asked.end(), alt) != asked.end()) continue;
    asked.push_back(alt);
    Config c = apply(incumbent, alt);
    if (infeasible && infeasible(c)) {
      const std::optional<Config> fitted = fit ? fit(c, g.fields) : std::nullopt;
      if (!fitted || project(*fitted, g.fields) != alt || infeasible(*fitted) ||
          std::find(out.configs.begin(), out.configs.end(), *fitted) != out.configs.end()) {
        out.infeasible += 1;
        continue;
      }
      c = *fitted;
      out.refitted += 1;
    }
    out.configs.push_back(c);
  }
  out.enumerated = int(asked.size());
  return out;
}

void check_held(const std::vector<std::string>& known, const std::vector<std::string>& fields) {
  for (const std::string& f : fields)
    if (std::find(known.begin(), known.end(), f) == known.end())
      throw Error(fmt::format("cannot hold '{}': the configuration's fields are {}", f, fmt::join(known, ", ")));
}

Tunable hold(Tunable t, const std::vector<std::string>& fields) {
  if (fields.empty()) return t;
  check_held(keys(t.warm_start), fields);
  t.space.held.insert(t.space.held.end(), fields.begin(), fields.end());
  const Config held = project(t.warm_start, fields);
  const auto keeps = [held](const Config& c) {
    for (const auto& [k, v] : held.fields)
      if (const std::string* value = find(c, k); value && *value != v) return false;
    return true;
  };
  for (Group& g : t.space.groups) std::erase_if(g.alternatives, [&](const Config& alt) { return !keeps(alt); });
  if (t.space.fit)
    t.space.fit = [fit = std::move(t.space.fit), keeps](const Config& c, const std::vector<std::string>& opened) {
      std::optional<Config> fitted = fit(c, opened);
      if (fitted && !keeps(*fitted)) return std::optional<Config>{};
      return fitted;
    };
  return t;
}

void check_space(const Space& s, const Config& warm_start) {
  for (const Group& g : s.groups) {
    if (g.fields.empty()) throw Error(fmt::format("group '{}' opens no field", g.name));
    for (const std::string& f : g.fields)
      if (!find(warm_start, f))
        throw Error(fmt::format("group '{}' opens '{}', which the warm start '{}' does not have", g.name, f,
                                to_string(warm_start)));
    for (const Config& alt : g.alternatives) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : alt.fields) keys.push_back(k);
      if (keys != g.fields)
        throw Error(fmt::format("group '{}': alternative '{}' does not set exactly its fields", g.name, to_string(alt)));
    }
  }
}

std::string digest(const Space& s) {
  uint64_t h = 1469598103934665603ull;
  const auto feed = [&](std::string_view text) {
    for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
    h = (h ^ 0xFF) * 1099511628211ull;  // a separator, so "ab","c" and "a","bc" differ
  };
  for (const Group& g : s.groups) {
    feed(g.name);
    for (const std::string& f : g.fields) feed(f);
    for (const Config& alt : g.alternatives) feed(to_string(alt));
  }
  // A hold changes the fit too, which the groups do not show: a campaign resumed without it must differ.
  for (const std::string& f : s.held) feed("held " + f);
  return fmt::format("{:016x}", h);
}

uint64_t product_size(const Space& s) {
  uint64_t n = 1;
  for (const Group& g : s.groups) {
    const uint64_t k = std::max<uint64_t>(g.alternatives.size(), 1);
    if (n > std::numeric_limits<uint64_t>::max() / k) throw Error("the grid over this space overflows 64 bits");
    n *= k;
  }
  return n;
}

}  // namespace tilewise::tune
