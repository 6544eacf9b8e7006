#include "families/cublaslt/tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"

namespace tilewise::cublaslt {

using families::Fields;
using families::Group;

namespace {

template <typename T>
void add_unique(std::vector<Fields>& to, T&& alt) {
  if (std::find(to.begin(), to.end(), alt) == to.end()) to.push_back(std::forward<T>(alt));
}

Fields fields(std::initializer_list<std::pair<std::string, int64_t>> kv) {
  Fields c;
  for (const auto& [k, v] : kv) c.fields.emplace_back(k, std::to_string(v));
  return c;
}

// "2x4x1" -> 8 CTAs when both sides are powers of two, else 0.
int power_of_two_ctas(const std::string& name) {
  int x = 0, y = 0, z = 0;
  if (std::sscanf(name.c_str(), "%dx%dx%d", &x, &y, &z) != 3 || z != 1) return 0;
  const auto pow2 = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  return pow2(x) && pow2(y) ? x * y : 0;
}

}  // namespace

Fields tuner_fields(const Config& c) { return families::parse_fields(to_string(c)); }
Config from_fields(const Fields& f) { return parse_config(to_string(f)); }

std::vector<uint32_t> splitk_values() { return {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32}; }

std::vector<uint16_t> cluster_values() {
  std::vector<uint16_t> out{0};  // AUTO: cuBLASLt picks
  for (uint16_t id = 1; id < 256; ++id) {
    const int ctas = power_of_two_ctas(enum_name("CLUSTER_SHAPE", id));
    if (ctas > 0 && ctas <= 8) out.push_back(id);
  }
  return out;
}

families::Space space(const std::vector<AlgoCaps>& caps, Check check) {
  if (caps.empty()) throw Unsupported("cuBLASLt has no algorithm for the problem's types");
  Group kernel{"kernel", {"algo", "tile", "stages", "inner"}, {}};
  Group split{"split", {"splitk", "reduction"}, {fields({{"splitk", 1}, {"reduction", 0}})}};
  Group mapping{"mapping", {"swizzle", "cluster"}, {}};
  Group custom{"custom", {"custom"}, {}};
  bool swizzle = false;
  int32_t custom_max = 0;
  uint32_t reductions = 0;
  for (const AlgoCaps& a : caps) {
    // The inner shape has no capability list; AlgoInit's default (undefined) lets the kernel choose.
    for (uint32_t tile : a.tiles)
      for (uint32_t stages : a.stages)
        add_unique(kernel.alternatives, fields({{"algo", a.algo_id}, {"tile", tile}, {"stages", stages}, {"inner", 0}}));
    if (a.splitk) reductions |= a.reduction_mask;
    swizzle = swizzle || a.swizzle;
    custom_max = std::max(custom_max, a.custom_max);
  }
  for (uint32_t k : splitk_values())
    for (uint32_t bit = 1; k > 1 && bit <= reductions; bit <<= 1)
      if (reductions & bit) add_unique(split.alternatives, fields({{"splitk", k}, {"reduction", bit}}));
  for (int s = 0; s <= (swizzle ? 1 : 0); ++s)
    for (uint16_t cluster : cluster_values()) add_unique(mapping.alternatives, fields({{"swizzle", s}, {"cluster", cluster}}));
  for (int32_t o = 0; o <= custom_max; ++o) add_unique(custom.alternatives, fields({{"custom", o}}));

  families::Space s;
  s.groups = {std::move(kernel), std::move(split), std::move(mapping), std::move(custom)};
  // candidates() and the fit ask about the same configurations again and again; AlgoCheck is asked once each.
  auto known = std::make_shared<std::map<std::string, std::optional<std::string>>>();
  s.infeasible = [check = std::move(check), known](const Fields& c) -> std::optional<std::string> {
    const std::string key = to_string(c);
    auto it = known->find(key);
    if (it == known->end()) it = known->emplace(key, check(from_fields(c))).first;
    return it->second;
  };
  // A new algorithm rarely takes the incumbent's split, option or cluster: the kernel round's candidates are tried
  // with the custom option and the mapping at their defaults, then with no split either. The resets come in that
  // order so that a split round's candidate is first tried keeping its split; a mapping or custom round's
  // candidate that needs its own fields reset is dropped by candidates() (the fit must keep the group's values).
  s.fit = [infeasible = s.infeasible](const Fields& c,
                                      const std::vector<std::string>&) -> std::optional<Fields> {
    Fields relaxed = apply(c, fields({{"custom", 0}, {"swizzle", 0}, {"cluster", 0}}));
    if (relaxed != c && !infeasible(relaxed)) return relaxed;
    relaxed = apply(relaxed, fields({{"splitk", 1}, {"reduction", 0}}));
    if (relaxed != c && !infeasible(relaxed)) return relaxed;
    return std::nullopt;
  };
  return s;
}

families::Tunable tunable(const Context& ctx, const Problem& p, const std::optional<Config>& start) {
  auto m = std::make_shared<const Matmul>(ctx, p);
  const std::vector<Candidate> offered = m->heuristic(32);  // as cublaslt-default asks: the same first one
  const Config warm = start ? *start : offered.front().config;
  Check check = [m, offered](const Config& c) -> std::optional<std::string> {
    try {
      resolve(*m, c, offered);
      return std::nullopt;
    } catch (const Unsupported& e) {
      return std::string(e.what());
    }
  };
  return families::Tunable{space(capabilities(*m), std::move(check)), tuner_fields(warm)};
}

}  // namespace tilewise::cublaslt
