#include "receipt/receipt.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/json.hpp"

// std::optional<T> <-> JSON null or value. nlohmann/json ships this itself from 3.12 on.
#if NLOHMANN_JSON_VERSION_MAJOR == 3 && NLOHMANN_JSON_VERSION_MINOR < 12
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) { j = v ? json(*v) : json(nullptr); }
  static void from_json(const json& j, std::optional<T>& v) {
    v = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
  }
};
}  // namespace nlohmann
#endif

namespace tilewise::receipt {

using nlohmann::json;

void to_json(json& j, const Tool& t) {
  j = {{"name", t.name}, {"version", t.version}, {"commit", t.commit}, {"dirty", t.dirty}};
  if (!t.kernel_sources.empty()) j["kernel_sources"] = t.kernel_sources;
  if (!t.kernel_sources_dir.empty()) j["kernel_sources_dir"] = t.kernel_sources_dir;
}

void from_json(const json& j, Tool& t) {
  j.at("name").get_to(t.name);
  j.at("version").get_to(t.version);
  j.at("commit").get_to(t.commit);
  j.at("dirty").get_to(t.dirty);
  t.kernel_sources = j.value("kernel_sources", std::string());
  t.kernel_sources_dir = j.value("kernel_sources_dir", std::string());
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReadBandwidth, bytes, us)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Machine, gpu, sm_count, cc, l2_bytes, smem_per_block_optin, memory_bytes, driver,
                                   cuda_runtime, cublaslt, nvrtc, sm_clock_max_mhz, mem_clock_max_mhz, power_limit_w,
                                   read_bw_gbps, read_bw)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PlannedCase, name, dtype, layout)

// Structs with fields added later write those only when set and read them with defaults, so older receipts still
// read: their fixed fields are an X-macro list, each written and read by name from `x`.
#define TW_PUT(f) j[#f] = x.f;
#define TW_GET(f) j.at(#f).get_to(x.f);

// The planned cases are the protocol's later field.
#define TW_PROTOCOL_FIELDS(X)                                                                                      \
  X(warmup_s) X(repeats) X(cold) X(rotation_sets) X(working_set_bytes) X(timing) X(arms) X(baseline) X(seed)      \
  X(graph_target_ms) X(replays) X(selection_rounds) X(rewarm_ms)

void to_json(json& j, const Protocol& x) {
  j = json::object();
  TW_PROTOCOL_FIELDS(TW_PUT)
  if (!x.planned.empty()) j["planned"] = x.planned;
}

void from_json(const json& j, Protocol& x) {
  TW_PROTOCOL_FIELDS(TW_GET)
  x.planned = j.value("planned", std::vector<PlannedCase>());
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClockSample, t_s, sm_mhz, mem_mhz, power_w, temp_c, reasons)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClockSummary, samples, sm_mhz_min, sm_mhz_median, sm_mhz_max, power_w_median,
                                   power_w_max, temp_c_max, reasons)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Clocks, available, unavailable_reason, before, during, after, warmup)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Candidate, config, correct, rel_err, us, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReferenceCheck, samples, max_err, bound, ok)

// The fields every arm has; the ones added for the decode GEMV arms (an own reference, an own rotation, the weight
// stream) are written only when set and read with defaults, so receipts written before them still read.
#define TW_ARM_FIELDS(X)                                                                                         \
  X(arm) X(config) X(config_text) X(error) X(correct) X(rel_err) X(max_abs_err) X(bound) X(launches)             \
  X(host_launches) X(us) X(host_us) X(us_median) X(us_min) X(us_max) X(host_us_median) X(tflops) X(gbps) X(clock) \
  X(candidates)

void to_json(json& j, const ArmResult& a) {
  j = json::object();
  const ArmResult& x = a;
  TW_ARM_FIELDS(TW_PUT)
  if (!a.declined.empty()) j["declined"] = a.declined;
  j["reference"] = a.reference;
  if (a.reference_check) j["reference_check"] = *a.reference_check;
  if (a.rotation_sets) {
    j["rotation_sets"] = a.rotation_sets;
    j["working_set_bytes"] = a.working_set_bytes;
  }
  if (a.weight_bytes) {
    j["weight_bytes"] = a.weight_bytes;
    j["weight_gbps"] = a.weight_gbps;
    j["weight_bw_fraction"] = a.weight_bw_fraction;
  }
  if (!a.plain_read_us.empty()) {
    j["plain_read_us"] = a.plain_read_us;
    j["plain_read_us_median"] = a.plain_read_us_median;
    j["plain_read_ratio"] = a.plain_read_ratio;
  }
}

void from_json(const json& j, ArmResult& a) {
  ArmResult& x = a;
  TW_ARM_FIELDS(TW_GET)
  a.declined = j.value("declined", std::string());
  a.reference = j.value("reference", std::string("problem"));
  a.reference_check = j.contains("reference_check") ? j.at("reference_check").get<std::optional<ReferenceCheck>>()
                                                    : std::nullopt;
  a.rotation_sets = j.value("rotation_sets", 0);
  a.working_set_bytes = j.value("working_set_bytes", int64_t{0});
  a.weight_bytes = j.value("weight_bytes", int64_t{0});
  a.weight_gbps = j.contains("weight_gbps") ? j.at("weight_gbps").get<std::optional<double>>() : std::nullopt;
  a.weight_bw_fraction =
      j.contains("weight_bw_fraction") ? j.at("weight_bw_fraction").get<std::optional<double>>() : std::nullopt;
  a.plain_read_us = j.value("plain_read_us", std::vector<double>());
  a.plain_read_us_median =
      j.contains("plain_read_us_median") ? j.at("plain_read_us_median").get<std::optional<double>>() : std::nullopt;
  a.plain_read_ratio =
      j.contains("plain_read_ratio") ? j.at("plain_read_ratio").get<std::optional<double>>() : std::nullopt;
}
#undef TW_ARM_FIELDS
#undef TW_PROTOCOL_FIELDS
#undef TW_PUT
#undef TW_GET

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Comparison, arm, baseline, speedup, overlap, claim)
void to_json(json& j, const Result& r) {
  j = json{{"problem", r.problem}, {"rotation_sets", r.rotation_sets}, {"working_set_bytes", r.working_set_bytes},
           {"seed", r.seed},       {"reference", r.reference},         {"arms", r.arms},
           {"comparisons", r.comparisons}};
  if (!r.suite.empty()) j["suite"] = r.suite;
}

void from_json(const json& j, Result& r) {
  j.at("problem").get_to(r.problem);
  j.at("rotation_sets").get_to(r.rotation_sets);
  j.at("working_set_bytes").get_to(r.working_set_bytes);
  j.at("seed").get_to(r.seed);
  j.at("reference").get_to(r.reference);
  j.at("arms").get_to(r.arms);
  j.at("comparisons").get_to(r.comparisons);
  r.suite = j.value("suite", std::string());
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Skipped, problem, reason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Prediction, id, problem, dtype, layout, metric, arm, baseline, low, high, falsifier,
                                   measured, verdict, reason, claim)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Preregistration, path, commit, question, predictions)

void to_json(json& j, const Receipt& r) {
  j = json{{"schema", r.schema_id}, {"created", r.created}, {"command", r.command}, {"notes", r.notes},
           {"tool", r.tool},        {"machine", r.machine}, {"protocol", r.protocol}, {"clocks", r.clocks},
           {"results", r.results},  {"skipped", r.skipped}, {"preregistration", r.preregistration},
           {"problems", r.problems}, {"valid", r.valid}};
}

namespace {

// nlohmann reads an integer into a narrower field by a cast, so 2^32 + 10 read into an int is 10 and a receipt would
// check valid with a figure it does not hold. Written back, such a field differs from what was read: refuse it there.
// The walk follows what was written, which is only as deep as the receipt's own types.
void refuse_narrowed_integers(const json& read, const json& written, const std::string& place) {
  if (written.is_object() && read.is_object()) {
    for (auto it = written.begin(); it != written.end(); ++it)
      if (const auto at = read.find(it.key()); at != read.end())
        refuse_narrowed_integers(*at, *it, place.empty() ? it.key() : place + "." + it.key());
  } else if (written.is_array() && read.is_array()) {
    for (size_t i = 0; i < written.size() && i < read.size(); ++i)
      refuse_narrowed_integers(read[i], written[i], fmt::format("{}[{}]", place, i));
  } else if (read.is_number_integer() && written.is_number() && read != written) {
    throw Error(fmt::format("{} = {} does not fit its field", place, read.dump()));
  }
}

}  // namespace

void from_json(const json& j, Receipt& r) {
  r.schema_id = j.at("schema").get<std::string>();
  r.created = j.at("created").get<std::string>();
  r.command = j.at("command").get<std::string>();
  r.notes = j.at("notes").get<std::vector<std::string>>();
  r.tool = j.at("tool").get<Tool>();
  r.machine = j.at("machine").get<Machine>();
  r.protocol = j.at("protocol").get<Protocol>();
  r.clocks = j.at("clocks").get<Clocks>();
  r.results = j.at("results").get<std::vector<Result>>();
  r.skipped = j.at("skipped").get<std::vector<Skipped>>();
  // Receipts written before protocols existed have no such field.
  r.preregistration = j.contains("preregistration") ? j.at("preregistration").get<std::optional<Preregistration>>()
                                                     : std::nullopt;
  r.problems = j.at("problems").get<std::vector<std::string>>();
  r.valid = j.at("valid").get<bool>();
  refuse_narrowed_integers(j, json(r), "");
}

void write_file(const Receipt& r, const std::string& path) {
  files::write(path, json(r).dump(1) + '\n', files::Existing::replace);
}

Receipt read_file(const std::string& path) {
  const json j = read_json(path);
  // Another of tilewise's files (a database, a campaign, a floor) is named as such, not by the first field it lacks.
  if (j.is_object() && j.contains("schema") && j["schema"].is_string() && j["schema"].get<std::string>() != schema)
    throw Error(fmt::format("{}: not a tilewise receipt: schema '{}', expected '{}'", path,
                            j["schema"].get<std::string>(), schema));
  try {
    return j.get<Receipt>();
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not a tilewise receipt: {}", path, e.what()));
  } catch (const Error& e) {  // a value the types refuse, e.g. an unknown dtype
    throw Error(fmt::format("{}: not a tilewise receipt: {}", path, e.what()));
  }
}

}  // namespace tilewise::receipt
