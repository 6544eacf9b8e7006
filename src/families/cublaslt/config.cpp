#include "families/cublaslt/config.hpp"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"

namespace tilewise::cublaslt {

namespace {

struct EnumName {
  std::string_view kind;
  uint32_t id;
  std::string_view name;
};
constexpr EnumName enum_names[] = {
#include "cublaslt_names.inc"
};

// The fields in canonical order, with a pointer-to-member-style accessor for each.
template <typename F>
void for_each_field(Config& c, F&& f) {
  f("algo", c.algo_id);
  f("tile", c.tile);
  f("stages", c.stages);
  f("splitk", c.splitk);
  f("reduction", c.reduction);
  f("swizzle", c.swizzle);
  f("custom", c.custom);
  f("inner", c.inner_shape);
  f("cluster", c.cluster);
}

}  // namespace

std::string enum_name(std::string_view kind, uint32_t id) {
  for (const EnumName& e : enum_names)
    if (e.kind == kind && e.id == id) return std::string(e.name);
  return fmt::format("#{}", id);
}

std::string reduction_name(uint32_t scheme) {
  switch (scheme) {
    case 0: return "none";
    case 1: return "inplace";
    case 2: return "compute-type";
    case 4: return "output-type";
  }
  return fmt::format("#{}", scheme);
}

std::string to_string(const Config& c) {
  std::string out;
  Config copy = c;
  for_each_field(copy, [&](const char* key, auto& v) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", key, int64_t(v));
  });
  return out;
}

Config parse_config(std::string_view text) {
  Config c;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    if (item.empty()) throw Error(fmt::format("cuBLASLt config '{}': an empty field", text));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw Error(fmt::format("cuBLASLt config '{}': '{}' is not key=value", text, item));
    const std::string key(item.substr(0, eq));
    const std::string_view value = item.substr(eq + 1);
    bool known = false;
    for_each_field(c, [&](const char* name, auto& field) {
      if (key != name) return;
      known = true;
      int64_t v = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      using T = std::remove_reference_t<decltype(field)>;
      if (ec != std::errc() || p != value.data() + value.size() || v < std::numeric_limits<T>::min() ||
          v > std::numeric_limits<T>::max())
        throw Error(fmt::format("cuBLASLt config '{}': {} = '{}' is not a valid value", text, key, value));
      field = T(v);
    });
    if (!known) throw Error(fmt::format("cuBLASLt config '{}': unknown field '{}'", text, key));
    if (!seen.insert(key).second) throw Error(fmt::format("cuBLASLt config '{}': '{}' given twice", text, key));
    pos = end + 1;
    if (end + 1 == text.size()) throw Error(fmt::format("cuBLASLt config '{}': an empty field", text));
  }
  if (!seen.count("algo")) throw Error(fmt::format("cuBLASLt config '{}': 'algo' is required", text));
  return c;
}

std::string describe(const Config& c) {
  return fmt::format("algo {} tile {} stages {} split-K {} reduction {} swizzle {} custom {} cluster {}", c.algo_id,
                     enum_name("MATMUL_TILE", c.tile), enum_name("MATMUL_STAGES", c.stages), c.splitk,
                     reduction_name(c.reduction), c.swizzle, c.custom, enum_name("CLUSTER_SHAPE", c.cluster));
}

void to_json(nlohmann::json& j, const Config& c) {
  j = {{"family", "cublaslt"},
       {"canonical", to_string(c)},
       {"algo_id", c.algo_id},
       {"tile_id", c.tile},
       {"tile", enum_name("MATMUL_TILE", c.tile)},
       {"stages_id", c.stages},
       {"stages", enum_name("MATMUL_STAGES", c.stages)},
       {"splitk", c.splitk},
       {"reduction_scheme", c.reduction},
       {"reduction", reduction_name(c.reduction)},
       {"swizzle", c.swizzle},
       {"custom_option", c.custom},
       {"inner_shape_id", c.inner_shape},
       {"cluster_shape_id", c.cluster},
       {"cluster", enum_name("CLUSTER_SHAPE", c.cluster)}};
}

void from_json(const nlohmann::json& j, Config& c) { c = parse_config(j.at("canonical").get<std::string>()); }

}  // namespace tilewise::cublaslt
