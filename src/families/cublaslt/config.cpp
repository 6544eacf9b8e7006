#include "families/cublaslt/config.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/error.hpp"
#include "families/fields.hpp"

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
  families::FieldReader r("cublaslt", text);
  Config c;
  for_each_field(c, [&](const char* key, auto& field) {
    using T = std::remove_reference_t<decltype(field)>;
    const long long lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    // The algorithm has no default: a configuration names the kernel it runs.
    field = T(std::string_view(key) == "algo" ? r.integer_in(key, lo, hi) : r.integer_in(key, lo, hi, field));
  });
  r.finish();
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
