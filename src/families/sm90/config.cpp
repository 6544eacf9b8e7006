#include "families/sm90/config.hpp"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"

namespace tilewise::sm90 {

namespace {

int parse_int(std::string_view key, std::string_view value, std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size())
    throw Error(fmt::format("sm90 config '{}': {}={} is not an integer", text, key, value));
  return v;
}

template <typename E>
E parse_choice(std::string_view key, std::string_view value, std::string_view text,
               std::initializer_list<std::pair<std::string_view, E>> choices) {
  std::string names;
  for (const auto& [name, e] : choices) {
    if (value == name) return e;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  }
  throw Error(fmt::format("sm90 config '{}': {}={} is not one of {}", text, key, value, names));
}

std::string_view name(Raster r) { return r == Raster::m ? "m" : "n"; }
std::string_view name(Store s) {
  return s == Store::tma ? "tma" : s == Store::tma_ring ? "tma_ring" : s == Store::staged ? "staged" : "direct";
}
std::string_view name(Schedule s) { return s == Schedule::pingpong ? "pingpong" : "cooperative"; }

void parse_cluster(std::string_view value, std::string_view text, Config& c) {
  if (value == "1x1") c.cluster_m = 1, c.cluster_n = 1;
  else if (value == "2x1") c.cluster_m = 2, c.cluster_n = 1;
  else if (value == "1x2") c.cluster_m = 1, c.cluster_n = 2;
  else throw Error(fmt::format("sm90 config '{}': cluster={} is not one of 1x1, 2x1, 1x2", text, value));
}

}  // namespace

std::string to_string(const Config& c) {
  return fmt::format(
      "block_m={},block_n={},stages={},consumers={},raster={},group={},store={},schedule={},cluster={}x{},split={}",
      c.block_m, c.block_n, c.stages, c.consumers, name(c.raster), c.group, name(c.store), name(c.schedule),
      c.cluster_m, c.cluster_n, c.split) + (c.swap ? ",swap=1" : "") + (c.pdl ? ",pdl=1" : "");
}

Config parse_config(std::string_view text) {
  Config c;
  std::set<std::string, std::less<>> seen;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos)
      throw Error(fmt::format("sm90 config '{}': '{}' is not key=value", text, item));
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (!seen.insert(std::string(key)).second)
      throw Error(fmt::format("sm90 config '{}': {} is given twice", text, key));
    if (key == "block_m") c.block_m = parse_int(key, value, text);
    else if (key == "block_n") c.block_n = parse_int(key, value, text);
    else if (key == "stages") c.stages = parse_int(key, value, text);
    else if (key == "consumers") c.consumers = parse_int(key, value, text);
    else if (key == "group") c.group = parse_int(key, value, text);
    else if (key == "raster") c.raster = parse_choice<Raster>(key, value, text, {{"m", Raster::m}, {"n", Raster::n}});
    else if (key == "store") c.store = parse_choice<Store>(key, value, text,
                                    {{"tma", Store::tma}, {"tma_ring", Store::tma_ring}, {"direct", Store::direct},
                                     {"staged", Store::staged}});
    else if (key == "schedule")
      c.schedule = parse_choice<Schedule>(key, value, text,
                                          {{"cooperative", Schedule::cooperative}, {"pingpong", Schedule::pingpong}});
    else if (key == "cluster") parse_cluster(value, text, c);
    else if (key == "split") c.split = parse_int(key, value, text);
    else if (key == "swap") c.swap = parse_choice<bool>(key, value, text, {{"0", false}, {"1", true}});
    else if (key == "pdl") c.pdl = parse_choice<bool>(key, value, text, {{"0", false}, {"1", true}});
    else
      throw Error(fmt::format("sm90 config '{}': unknown field '{}' (known: block_m, block_n, stages, consumers, "
                              "raster, group, store, schedule, cluster, split, swap, pdl)", text, key));
    pos = end + 1;
  }
  return c;
}

std::string describe(const Config& c) {
  return fmt::format("{}x{} tile, {} stages, {} {} consumer{}, cluster {}x{}, raster {}/{}, {} store{}{}{}", c.block_m,
                     c.block_n, c.stages, c.consumers, name(c.schedule), c.consumers == 1 ? "" : "s", c.cluster_m,
                     c.cluster_n, name(c.raster), c.group, name(c.store),
                     c.split > 1 ? fmt::format(", stream-K split {}", c.split) : "",
                     c.swap ? ", operands swapped (A on the 64-row side)" : "",
                     c.pdl ? ", programmatic dependent launch" : "");
}

void to_json(nlohmann::json& j, const Config& c) { j = to_string(c); }
void from_json(const nlohmann::json& j, Config& c) {
  if (!j.is_string()) throw Error(fmt::format("sm90 config in JSON must be a string, got {}", j.dump()));
  c = parse_config(j.get<std::string>());
}

}  // namespace tilewise::sm90
