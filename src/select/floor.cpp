#include "select/floor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/registry.hpp"
#include "receipt/derive.hpp"
#include "select/json_file.hpp"

namespace tilewise::select {

extern const char* const shipped_floor_json;  // generated from data/floor-h200.json (cmake/shipped_data.cmake)

bool vendor_aligned(const Problem& p) { return p.lda % 8 == 0 && p.ldb % 8 == 0 && (p.M == 1 || p.ldc % 8 == 0); }

FloorClass floor_class(const Problem& p) { return {p.dtype, p.layout, vendor_aligned(p)}; }

namespace {

double distance(const Problem& a, const Problem& b) {
  const auto d = [](int64_t x, int64_t y) { return std::log2(double(x)) - std::log2(double(y)); };
  return std::hypot(d(a.M, b.M), d(a.N, b.N), d(a.K, b.K));
}

}  // namespace

FloorVerdict judge(const FloorRule& rule, const Problem& p, const std::string& family) {
  FloorVerdict v;
  const FloorClass cls = floor_class(p);
  std::vector<std::pair<double, size_t>> near;
  for (size_t i = 0; i < rule.points.size(); ++i) {
    const FloorPoint& pt = rule.points[i];
    if (!pt.families.count(family) || floor_class(pt.problem) != cls) continue;
    if (const double d = distance(pt.problem, p); d <= rule.radius) near.emplace_back(d, i);
  }
  std::sort(near.begin(), near.end());
  if (near.size() < size_t(rule.neighbours)) {
    v.why = fmt::format("{} of the {} measured {} problems needed lie within {:.2f} (log2)", near.size(), rule.neighbours,
                        family, rule.radius);
    return v;
  }
  near.resize(size_t(rule.neighbours));
  v.score = 1e300;
  for (const auto& [d, i] : near) {
    v.neighbours.push_back(i);
    const Outcome& o = rule.points[i].families.at(family);
    if (!o.current && v.why.empty())
      v.why = fmt::format("timed on {} with {}, which its rule no longer chooses there",
                          describe(rule.points[i].problem), o.config);
    if (o.claim != "faster" && v.why.empty())
      v.why = fmt::format("not faster than cublaslt-default beyond noise on {} ({:.3f}x)",
                          describe(rule.points[i].problem), o.speedup);
    v.score = std::min(v.score, o.speedup);
  }
  v.taken = v.why.empty();
  if (!v.taken) v.score = 0;
  return v;
}

void mark_current(FloorRule& rule) {
  for (FloorPoint& pt : rule.points)
    for (auto& [name, o] : pt.families) {
      const families::Family* family = families::find_family(name);
      o.current = family && family->rule(pt.problem, rule.sm_count) == o.config;
    }
}

int count_not_current(const FloorRule& rule) {
  int n = 0;
  for (const FloorPoint& pt : rule.points)
    for (const auto& [_, o] : pt.families) n += !o.current;
  return n;
}

bool holds_on(const FloorRule& rule, const Identity& running) {
  return running.gpu == rule.gpu && running.sm_count == rule.sm_count && running.cc == rule.cc;
}

std::optional<std::string> floor_pick(const FloorRule& rule, const Problem& p, const std::vector<std::string>& candidates,
                                      const Identity* running) {
  if (running && !holds_on(rule, *running)) return std::nullopt;
  std::optional<std::string> best;
  double best_score = 0;
  for (const std::string& f : candidates)
    if (const FloorVerdict v = judge(rule, p, f); v.taken && v.score > best_score) best = f, best_score = v.score;
  return best;
}

nlohmann::json to_json(const FloorRule& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const FloorPoint& pt : r.points) {
    nlohmann::json fam = nlohmann::json::object();
    for (const auto& [f, o] : pt.families) fam[f] = {{"speedup", o.speedup}, {"claim", o.claim}, {"config", o.config}};
    points.push_back({{"problem", pt.problem}, {"families", fam}});
  }
  return {{"schema", kFloorSchema},       {"gpu", r.gpu},         {"sm_count", r.sm_count},
          {"cc", r.cc},                   {"neighbours", r.neighbours}, {"radius", r.radius},
          {"receipts", r.receipts},       {"points", points}};
}

FloorRule parse_floor(const nlohmann::json& j, const std::string& origin) {
  const At at{j, origin, ""};
  if (at["schema"].string() == "tilewise.floor/1")
    at["schema"].fail("a floor from before floors recorded the configurations they timed: fit it again with `tilewise "
                      "floor fit` on its receipts");
  if (at["schema"].string() != kFloorSchema)
    at["schema"].fail(fmt::format("'{}' is not {}", at["schema"].string(), kFloorSchema));
  FloorRule r;
  r.gpu = at["gpu"].string();
  r.sm_count = at["sm_count"].sm_count();
  r.cc = at["cc"].string();
  r.neighbours = at["neighbours"].count();
  r.radius = at["radius"].number();
  if (r.neighbours < 1) at["neighbours"].fail("must be at least 1");
  if (!(r.radius > 0) || !std::isfinite(r.radius)) at["radius"].fail("must be a positive finite number");
  for (size_t i = 0; i < at["receipts"].array().size(); ++i) r.receipts.push_back(at["receipts"][i].string());
  const At points = at["points"];
  for (size_t i = 0; i < points.array().size(); ++i) {
    FloorPoint pt;
    try {
      pt.problem = points[i]["problem"].value.get<Problem>();
      validate(pt.problem);
    } catch (const std::exception& e) {
      points[i]["problem"].fail(e.what());
    }
    const At fam = points[i]["families"];
    for (const auto& [name, _] : fam.object().items()) {
      Outcome o{fam[name]["speedup"].number(), fam[name]["claim"].string(), fam[name]["config"].string()};
      if (o.config.empty()) fam[name]["config"].fail("must name the configuration the family ran");
      if (!(o.speedup > 0) || !std::isfinite(o.speedup)) fam[name]["speedup"].fail("must be a positive finite number");
      if (o.claim != "faster" && o.claim != "slower" && o.claim != "none")
        fam[name]["claim"].fail(fmt::format("'{}' is not faster, slower or none", o.claim));
      pt.families.emplace(name, o);
    }
    r.points.push_back(std::move(pt));
  }
  return r;
}

FloorRule load_floor(const nlohmann::json& j, const std::string& origin) {
  FloorRule rule = parse_floor(j, origin);
  mark_current(rule);
  return rule;
}

FloorRule read_floor(const std::string& path) { return load_floor(read_json_file(path), path); }

const FloorRule& shipped_floor() {
  static const FloorRule rule = load_floor(nlohmann::json::parse(shipped_floor_json), "data/floor-h200.json");
  return rule;
}

std::vector<FloorPoint> floor_points(const std::vector<receipt::Receipt>& receipts,
                                     const std::map<std::string, std::string>& family_arms, const std::string& baseline) {
  std::vector<FloorPoint> out;
  for (const receipt::Receipt& r : receipts) {
    if (r.machine.sm_count < 1 || r.machine.sm_count > 1024)
      throw Error(fmt::format("the receipt of {} names {} SMs: the floor's rules cannot be asked for that GPU", r.created,
                              r.machine.sm_count));
    FloorRule measured;  // this receipt's points, marked against the rules on its machine's SMs
    measured.sm_count = r.machine.sm_count;
    for (const receipt::Result& res : r.results) {
      const auto base = std::find_if(res.arms.begin(), res.arms.end(), [&](const receipt::ArmResult& a) {
        return a.arm == baseline && a.correct && a.us_median;
      });
      if (base == res.arms.end()) continue;
      FloorPoint pt{res.problem, {}};
      for (const receipt::ArmResult& a : res.arms) {
        const auto fam = family_arms.find(a.arm);
        if (fam == family_arms.end() || !a.correct || !a.us_median) continue;
        std::optional<std::string> config;
        try {
          config = families::family(fam->second).recorded_config(a.config);
        } catch (const Error& e) {
          throw Error(fmt::format("the receipt of {}, arm {} on {}: {}", r.created, a.arm, res.problem.name, e.what()));
        }
        if (!config)
          throw Error(fmt::format("the receipt of {} holds the arm {} on {} with no configuration: the floor keeps what "
                                  "each family ran",
                                  r.created, a.arm, res.problem.name));
        const receipt::Comparison c = receipt::compare(a, *base);
        pt.families[fam->second] = {c.speedup, c.claim, *config};
      }
      measured.points.push_back(std::move(pt));
    }
    mark_current(measured);
    for (FloorPoint& pt : measured.points) {
      // A problem timed again (its stale outcomes re-timed alone): the later receipt's outcome of each family replaces
      // the earlier one's; each outcome still compares two arms of one receipt.
      const auto earlier =
          std::find_if(out.begin(), out.end(), [&](const FloorPoint& o) { return o.problem == pt.problem; });
      if (earlier == out.end()) {
        out.push_back(std::move(pt));
        continue;
      }
      for (auto& [family, outcome] : pt.families) earlier->families[family] = std::move(outcome);
    }
  }
  return out;
}

}  // namespace tilewise::select
