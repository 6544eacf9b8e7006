#include "families/sm90/config.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/fields.hpp"
#include "kernels/sm90/packed_order.h"

namespace tilewise::sm90 {

namespace {

using families::Named;
constexpr Named<Raster> kRasters[] = {{"m", Raster::m}, {"n", Raster::n}};
constexpr Named<Store> kStores[] = {
    {"tma", Store::tma}, {"tma_ring", Store::tma_ring}, {"direct", Store::direct}, {"staged", Store::staged}};
constexpr Named<Schedule> kSchedules[] = {{"cooperative", Schedule::cooperative}, {"pingpong", Schedule::pingpong}};
constexpr Named<Weights> kWeights[] = {
    {"as_input", Weights::as_input}, {"int4g128", Weights::int4_g128}, {"int4g32", Weights::int4_g32},
    {"q8_0", Weights::q8_0}, {"fp8", Weights::fp8}};
constexpr Named<std::pair<int, int>> kClusters[] = {{"1x1", {1, 1}}, {"2x1", {2, 1}}, {"1x2", {1, 2}}};

std::string_view name(Raster r) { return families::name_of(kRasters, r); }
std::string_view name(Store s) { return families::name_of(kStores, s); }
std::string_view name(Schedule s) { return families::name_of(kSchedules, s); }

}  // namespace

std::string to_string(const Config& c) {
  return fmt::format(
      "block_m={},block_n={},stages={},consumers={},raster={},group={},store={},schedule={},cluster={}x{},split={}",
      c.block_m, c.block_n, c.stages, c.consumers, name(c.raster), c.group, name(c.store), name(c.schedule),
      c.cluster_m, c.cluster_n, c.split) + (c.swap ? ",swap=1" : "") + (c.pdl ? ",pdl=1" : "") +
         (c.weights != Weights::as_input ? fmt::format(",weights={}", to_string(c.weights)) : "");
}

std::string_view to_string(Weights w) { return families::name_of(kWeights, w); }

int weight_group(Weights w) { return kernels::sm90::packed_group(int(w)); }

Config parse_config(std::string_view text) {
  families::FieldReader r("sm90", text);
  const Config d;
  Config c;
  c.block_m = r.integer("block_m", d.block_m);
  c.block_n = r.integer("block_n", d.block_n);
  c.stages = r.integer("stages", d.stages);
  c.consumers = r.integer("consumers", d.consumers);
  c.raster = r.choice("raster", kRasters, d.raster);
  c.group = r.integer("group", d.group);
  c.store = r.choice("store", kStores, d.store);
  c.schedule = r.choice("schedule", kSchedules, d.schedule);
  const std::pair<int, int> cluster = r.choice("cluster", kClusters, std::pair{d.cluster_m, d.cluster_n});
  c.cluster_m = cluster.first, c.cluster_n = cluster.second;
  c.split = r.integer("split", d.split);
  c.swap = r.flag("swap", d.swap);
  c.pdl = r.flag("pdl", d.pdl);
  c.weights = r.choice("weights", kWeights, d.weights);
  r.finish();
  return c;
}

std::string describe(const Config& c) {
  return fmt::format("{}x{} tile, {} stages, {} {} consumer{}, cluster {}x{}, raster {}/{}, {} store{}{}{}{}", c.block_m,
                     c.block_n, c.stages, c.consumers, name(c.schedule), c.consumers == 1 ? "" : "s", c.cluster_m,
                     c.cluster_n, name(c.raster), c.group, name(c.store),
                     c.split > 1 ? fmt::format(", stream-K split {}", c.split) : "",
                     c.swap ? ", operands swapped (A on the 64-row side)" : "",
                     c.pdl ? ", programmatic dependent launch" : "",
                     c.weights != Weights::as_input ? fmt::format(", {} weights dequantized in registers", to_string(c.weights))
                                                    : "");
}

void to_json(nlohmann::json& j, const Config& c) { j = to_string(c); }
void from_json(const nlohmann::json& j, Config& c) {
  if (!j.is_string()) throw Error(fmt::format("sm90 config in JSON must be a string, got {}", j.dump()));
  c = parse_config(j.get<std::string>());
}

}  // namespace tilewise::sm90
