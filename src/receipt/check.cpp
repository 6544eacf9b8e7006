#include "receipt/check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/json.hpp"
#include "receipt/derive.hpp"
#include "receipt/receipt.hpp"
#include "receipt/verdict.hpp"

namespace tilewise::receipt {

namespace {

bool same(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return std::fabs(*a - *b) <= 1e-9 * std::max(std::fabs(*a), std::fabs(*b)) + 1e-12;
}

std::string show(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : "null"; }

class Checker {
 public:
  Checker(const Receipt& r, const PlannedProblems& planned) : r_(r), planned_(planned) {}

  std::vector<std::string> run() {
    run_level();
    for (size_t i = 0; i < r_.results.size(); ++i) result(r_.results[i], i);
    planned_cases();
    if (r_.preregistration) preregistration(*r_.preregistration);
    if (r_.valid != r_.problems.empty())
      add(fmt::format("'valid' is {} but 'problems' lists {} entr{}", r_.valid, r_.problems.size(),
                      r_.problems.size() == 1 ? "y" : "ies"));
    return found_;
  }

 private:
  void add(std::string s) { found_.push_back(std::move(s)); }

  // Each sample a time: finite and positive (a negative or NaN sample once passed, its median still "matching").
  void times(const std::string& where, const char* what, const std::vector<double>& samples) {
    for (double us : samples)
      if (!std::isfinite(us) || us <= 0) add(fmt::format("{}: {} sample {} is not a time", where, what, us));
  }

  void run_level() {
    const Protocol& p = r_.protocol;
    if (p.warmup_s < warmup_floor_s)
      add(fmt::format("warm-up {:.2f} s is under the {:.0f} s floor", p.warmup_s, warmup_floor_s));
    if (p.repeats < 1) add(fmt::format("protocol.repeats = {} must be at least 1", p.repeats));
    if (p.replays < 1) add(fmt::format("protocol.replays = {} must be at least 1", p.replays));
    if (p.arms.empty()) add("protocol.arms is empty");
    if (!p.baseline.empty() && std::find(p.arms.begin(), p.arms.end(), p.baseline) == p.arms.end())
      add(fmt::format("baseline arm '{}' is not among protocol.arms", p.baseline));
    if (p.cold && p.working_set_bytes < cold_l2_multiple * r_.machine.l2_bytes)
      add(fmt::format("protocol.working_set_bytes {} B of a cold run is under {}x the L2 ({} B)", p.working_set_bytes,
                      cold_l2_multiple, cold_l2_multiple * r_.machine.l2_bytes));
    if (!r_.clocks.available) add(fmt::format("clocks were not sampled: {}", r_.clocks.unavailable_reason));
    if (r_.machine.read_bw.us.empty()) add("the read bandwidth was not measured");
    times("machine.read_bw", "us", r_.machine.read_bw.us);
    const double bw = read_bw_gbps(r_.machine.read_bw);
    if (!same(bw, r_.machine.read_bw_gbps))
      add(fmt::format("machine.read_bw_gbps {:.6g} does not match its samples ({:.6g})", r_.machine.read_bw_gbps, bw));
    int most_sets = 0;
    for (const Result& res : r_.results) most_sets = std::max(most_sets, res.rotation_sets);
    if (!r_.results.empty() && most_sets != p.rotation_sets)
      add(fmt::format("protocol.rotation_sets = {} but the results use at most {}", p.rotation_sets, most_sets));
  }

  void result(const Result& res, size_t i) {
    const Problem& pb = res.problem;
    const std::string where = fmt::format("results[{}] {} {} {}", i, pb.name, to_string(pb.dtype), to_string(pb.layout));
    try {
      validate(pb);
    } catch (const Error& e) {
      add(fmt::format("{}: invalid problem: {}", where, e.what()));
      return;
    }
    int64_t expect_ws = 0;
    try {
      expect_ws = checked_product({res.rotation_sets, rotation_set_bytes(pb)}, where + ": the working set");
    } catch (const Error& e) {
      add(e.what());
    }
    if (res.rotation_sets < 1 || res.working_set_bytes != expect_ws)
      add(fmt::format("{}: working_set_bytes {} is not rotation_sets x set bytes ({})", where, res.working_set_bytes, expect_ws));
    if (r_.protocol.cold && res.working_set_bytes < r_.protocol.working_set_bytes)
      add(fmt::format("{}: cold working set {} B is under the protocol's {} B", where, res.working_set_bytes,
                      r_.protocol.working_set_bytes));
    if (!r_.protocol.cold && res.rotation_sets != 1)
      add(fmt::format("{}: a warm run uses one buffer set, not {}", where, res.rotation_sets));
    reference(res.reference, where);

    std::map<std::string, const ArmResult*> by_name;
    for (const ArmResult& a : res.arms) {
      if (!by_name.emplace(a.arm, &a).second) add(fmt::format("{}: arm '{}' appears twice", where, a.arm));
      arm(a, pb, where);
    }
    for (const std::string& name : r_.protocol.arms)
      if (!by_name.count(name)) add(fmt::format("{}: arm '{}' is missing", where, name));
    comparisons(res, by_name, where);
  }

  void reference(const ReferenceCheck& ref, const std::string& where) {
    if (ref.bound != reference_bound)
      add(fmt::format("{}: reference bound {:.3g} is not the tool's {:.3g}", where, ref.bound, reference_bound));
    const bool ok = ref.samples > 0 && std::isfinite(ref.max_err) && ref.max_err <= reference_bound;
    if (ok != ref.ok) add(fmt::format("{}: reference.ok = {} does not match its error {:.3g}", where, ref.ok, ref.max_err));
    if (!ok) add(fmt::format("{}: the GPU reference failed its fp64 check (error {:.3g})", where, ref.max_err));
  }

  void arm(const ArmResult& a, const Problem& pb, const std::string& res_where) {
    const std::string where = fmt::format("{} [{}]", res_where, a.arm);
    const double bound = correctness_bound(pb.dtype);
    if (a.bound != bound)
      add(fmt::format("{}: bound {:.3g} is not the tool's bound {:.3g} for {}", where, a.bound, bound, to_string(pb.dtype)));
    if (a.correct != is_correct(a.rel_err, bound))
      add(fmt::format("{}: 'correct' is {} but rel_err {} against bound {:.3g} says otherwise", where, a.correct,
                      show(a.rel_err), bound));
    if (!a.declined.empty()) {  // not run, so it carries nothing of a run
      if (!a.error.empty() || a.correct || a.rel_err || !a.us.empty() || !a.host_us.empty() || a.launches ||
          a.host_launches || a.us_median || a.host_us_median)
        add(fmt::format("{}: declined ({}) but carries a run's error, check or timings", where, a.declined));
      return;
    }
    if (!a.error.empty()) add(fmt::format("{}: did not run: {}", where, a.error));
    else if (!a.correct) add(fmt::format("{}: incorrect (rel_err {} > {:.3g})", where, show(a.rel_err), bound));
    if (!a.correct && (a.tflops || a.gbps || a.us_median))
      add(fmt::format("{}: an incorrect arm carries a throughput", where));

    times(where, "us", a.us);
    times(where, "host_us", a.host_us);
    for (const Candidate& c : a.candidates)
      if (c.us) times(where, "candidate us", {*c.us});
    if (a.correct) {
      const size_t want = size_t(std::max(r_.protocol.repeats, 0));
      if (a.us.size() != want || a.host_us.size() != want)
        add(fmt::format("{}: {} graph and {} host samples for {} repeats", where, a.us.size(), a.host_us.size(), want));
      if (a.launches < 1 || a.host_launches < 1) add(fmt::format("{}: launch counts are missing", where));
    }
    if (a.weight_bytes < 0) add(fmt::format("{}: weight_bytes {} is negative", where, a.weight_bytes));
    if (!a.plain_read_us.empty()) {  // timed only beside a correct arm's weight stream, once a repeat
      if (a.weight_bytes <= 0 || !a.correct)
        add(fmt::format("{}: a plain read is timed only beside a correct arm that reports its weight bytes", where));
      else if (a.plain_read_us.size() != a.us.size())
        add(fmt::format("{}: {} plain-read samples for {} repeats", where, a.plain_read_us.size(), a.us.size()));
      times(where, "plain-read", a.plain_read_us);
    }
    if (a.reference != "problem") {
      if (!a.reference_check) add(fmt::format("{}: judged against '{}' but carries no fp64 check of it", where, a.reference));
      else reference(*a.reference_check, where);
    }
    if (a.rotation_sets < 0 || (a.rotation_sets == 0) != (a.working_set_bytes == 0))
      add(fmt::format("{}: own rotation of {} sets over {} B is inconsistent", where, a.rotation_sets, a.working_set_bytes));
    if (r_.protocol.cold && a.rotation_sets > 0 && a.working_set_bytes < r_.protocol.working_set_bytes)
      add(fmt::format("{}: cold working set of the arm's own rotation {} B is under the protocol's {} B", where,
                      a.working_set_bytes, r_.protocol.working_set_bytes));
    ArmResult again = a;
    derive(again, pb, read_bw_gbps(r_.machine.read_bw));
    const std::pair<const char*, std::pair<std::optional<double>, std::optional<double>>> fields[] = {
        {"us_median", {a.us_median, again.us_median}}, {"us_min", {a.us_min, again.us_min}},
        {"us_max", {a.us_max, again.us_max}},          {"host_us_median", {a.host_us_median, again.host_us_median}},
        {"tflops", {a.tflops, again.tflops}},          {"gbps", {a.gbps, again.gbps}},
        {"weight_gbps", {a.weight_gbps, again.weight_gbps}},
        {"weight_bw_fraction", {a.weight_bw_fraction, again.weight_bw_fraction}},
        {"plain_read_us_median", {a.plain_read_us_median, again.plain_read_us_median}},
        {"plain_read_ratio", {a.plain_read_ratio, again.plain_read_ratio}},
    };
    for (const auto& [name, values] : fields)
      if (!same(values.first, values.second))
        add(fmt::format("{}: {} {} does not match its samples ({})", where, name, show(values.first), show(values.second)));

    if (again.us_median && again.host_us_median && *again.us_median >= long_kernel_us) {
      const double gap = timing_paths_gap(again);
      if (gap > timing_paths_tolerance)
        add(fmt::format("{}: timing paths disagree: graph replay {:.2f} us, host loop {:.2f} us ({:.0f}% apart within "
                        "a repeat, by median)",
                        where, *again.us_median, *again.host_us_median, 100 * gap));
    }
    // The reference is the clock sustained under the warm-up's heavy load where the receipt has it: the median of
    // the timed regions runs at the boost clock of the small problems, which a power-capped 16384^3 GEMM never
    // sees. Older receipts are judged against the timed regions' median, as when they were written.
    const bool sustained = r_.clocks.warmup.samples > 0;
    const ClockSummary& run = sustained ? r_.clocks.warmup : r_.clocks.during;
    if (r_.clocks.available && a.clock.samples > 0 && run.sm_mhz_median > 0 &&
        a.clock.sm_mhz_median < clock_sag_fraction * run.sm_mhz_median)
      add(fmt::format("{}: SM clock sagged to a median {} MHz against {} {} MHz", where, a.clock.sm_mhz_median,
                      sustained ? "the warm-up's sustained" : "the run's", run.sm_mhz_median));
  }

  void comparisons(const Result& res, const std::map<std::string, const ArmResult*>& arms, const std::string& where) {
    const std::string& base = r_.protocol.baseline;
    std::set<std::string> expected;
    if (!base.empty() && arms.count(base))
      for (const auto& [name, a] : arms)
        if (name != base && a->us_median && arms.at(base)->us_median) expected.insert(name);
    std::set<std::string> seen;
    for (const Comparison& c : res.comparisons) {
      if (c.arm == c.baseline || seen.count(c.arm)) {
        add(fmt::format("{}: comparison {} vs {} is repeated or compares an arm with itself", where, c.arm, c.baseline));
        continue;
      }
      if (c.baseline != base || !arms.count(c.arm) || !arms.count(c.baseline)) {
        add(fmt::format("{}: comparison {} vs {} names an arm or baseline the receipt lacks", where, c.arm, c.baseline));
        continue;
      }
      seen.insert(c.arm);
      const Comparison again = compare(*arms.at(c.arm), *arms.at(c.baseline));
      if (!same(c.speedup, again.speedup) || c.overlap != again.overlap || c.claim != again.claim)
        add(fmt::format("{}: comparison {} vs {} says {:.4g}x '{}' but the samples say {:.4g}x '{}'", where, c.arm,
                        c.baseline, c.speedup, c.claim, again.speedup, again.claim));
    }
    for (const std::string& name : expected)
      if (!seen.count(name)) add(fmt::format("{}: comparison of {} against {} is missing", where, name, base));
  }

  // A problem the run planned is in the results or the skipped: one deleted from the results left a receipt that
  // checked valid.
  bool accounted(const std::string& name, const std::string& dtype, const std::string& layout) const {
    return find_result(r_, name, dtype, layout) || find_skipped(r_, name, dtype, layout);
  }

  // Where the run recorded its plan: every planned case measured or skipped, and nothing measured it did not plan.
  // Named in one line each way, the first few cases, so an interrupted run's receipt stays short.
  void planned_cases() {
    const std::vector<PlannedCase>& plan = r_.protocol.planned;
    if (plan.empty()) return;
    const auto key = [](std::string_view name, std::string_view dtype, std::string_view layout) {
      return fmt::format("{} {} {}", name, dtype, layout);
    };
    std::set<std::string> measured, planned;
    for (const Result& res : r_.results)
      measured.insert(key(res.problem.name, to_string(res.problem.dtype), to_string(res.problem.layout)));
    std::set<std::string> accounted = measured;
    for (const Skipped& sk : r_.skipped) {  // describe() starts "name dtype layout "
      std::istringstream words(sk.problem);
      std::string name, dtype, layout;
      if (words >> name >> dtype >> layout) accounted.insert(key(name, dtype, layout));
    }
    std::vector<std::string> missing, unplanned;
    for (const PlannedCase& c : plan) {
      planned.insert(key(c.name, c.dtype, c.layout));
      if (!accounted.count(key(c.name, c.dtype, c.layout))) missing.push_back(key(c.name, c.dtype, c.layout));
    }
    for (const std::string& m : measured)
      if (!planned.count(m)) unplanned.push_back(m);
    const auto some = [](const std::vector<std::string>& cases) {
      const size_t shown = std::min<size_t>(cases.size(), 3);
      return fmt::format("{}{}", fmt::join(cases.begin(), cases.begin() + long(shown), ", "),
                         cases.size() > shown ? fmt::format(" and {} more", cases.size() - shown) : "");
    };
    if (!missing.empty())
      add(fmt::format("{} planned case{} in neither the results nor the skipped: {}", missing.size(),
                      missing.size() == 1 ? " is" : "s are", some(missing)));
    if (!unplanned.empty())
      add(fmt::format("{} result{} not planned: {}", unplanned.size(), unplanned.size() == 1 ? " was" : "s were",
                      some(unplanned)));
  }

  void preregistration(const Preregistration& pre) {
    if (pre.path.empty() || pre.commit.empty()) add("preregistration lacks its protocol file or the commit that froze it");
    std::set<std::string> missing;
    for (const Prediction& p : pre.predictions)
      if (!accounted(p.problem, p.dtype, p.layout) &&
          missing.insert(fmt::format("{} {} {}", p.problem, p.dtype, p.layout)).second)
        add(fmt::format("prediction {}: {} {} {} is in neither the results nor the skipped", p.id, p.problem, p.dtype,
                        p.layout));
    if (const std::optional<std::vector<Problem>> planned = planned_ ? planned_(pre) : std::nullopt)
      for (const Problem& q : *planned) {
        const std::string dtype(to_string(q.dtype)), layout(to_string(q.layout));
        if (!accounted(q.name, dtype, layout) && missing.insert(fmt::format("{} {} {}", q.name, dtype, layout)).second)
          add(fmt::format("{} (commit {}) plans {} {} {}, which is in neither the results nor the skipped", pre.path,
                          pre.commit.substr(0, 10), q.name, dtype, layout));
      }
    for (const Prediction& p : pre.predictions) {
      Prediction again = p;
      judge(again, r_);
      if (!same(p.measured, again.measured) || p.verdict != again.verdict || p.claim != again.claim)
        add(fmt::format("prediction {}: the receipt says {} '{}' but its results say {} '{}'", p.id, show(p.measured),
                        p.verdict, show(again.measured), again.verdict));
      if (p.low > p.high) add(fmt::format("prediction {}: range [{}, {}] is inverted", p.id, p.low, p.high));
    }
  }

  const Receipt& r_;
  const PlannedProblems& planned_;
  std::vector<std::string> found_;
};

}  // namespace

std::vector<std::string> check(const nlohmann::json& j, const PlannedProblems& planned) {
  if (!j.is_object()) return {"not a JSON object"};
  if (!j.contains("schema") || !j["schema"].is_string()) return {"missing field 'schema'"};
  if (j["schema"] != schema) return {fmt::format("schema is '{}', expected '{}'", j["schema"].get<std::string>(), schema)};
  Receipt r;
  try {
    r = j.get<Receipt>();
  } catch (const nlohmann::json::exception& e) {
    return {fmt::format("malformed receipt: {}", e.what())};
  } catch (const Error& e) {
    return {fmt::format("malformed receipt: {}", e.what())};
  }
  return Checker(r, planned).run();
}

namespace {

// The verdict on a receipt file's JSON, read once by its caller.
FileVerdict verdict_of(const std::string& path, const nlohmann::json& j, const PlannedProblems& planned = {}) {
  FileVerdict v{path, false, {}, 0};
  std::vector<std::string> found = check(j, planned);
  std::set<std::string> listed;
  if (j.is_object() && j.contains("problems") && j["problems"].is_array())
    for (const auto& p : j["problems"])
      if (p.is_string() && listed.insert(p.get<std::string>()).second) v.problems.push_back(p.get<std::string>());
  for (std::string& f : found)
    if (listed.insert(f).second) v.problems.push_back(std::move(f));
  if (j.is_object() && j.contains("results") && j["results"].is_array()) v.results = j["results"].size();
  v.valid = v.problems.empty();
  return v;
}

}  // namespace

FileVerdict check_file(const std::string& path, const PlannedProblems& planned) {
  try {
    return verdict_of(path, read_json(path), planned);
  } catch (const Error& e) {  // unreadable, or not JSON
    return {path, false, {e.what()}, 0};
  }
}

std::vector<std::pair<std::string, Receipt>> read_valid_receipts(const std::vector<std::string>& paths,
                                                                 const std::string& use) {
  files::refuse_repeated_inputs(paths);
  std::vector<std::pair<std::string, Receipt>> out;
  for (const std::string& path : paths) {
    nlohmann::json j;
    try {
      j = read_json(path);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: not a valid receipt ({}); {}", path, e.what(), use));
    }
    const FileVerdict v = verdict_of(path, j);
    if (!v.valid) throw Error(fmt::format("{}: not a valid receipt ({}); {}", path, v.problems.front(), use));
    out.emplace_back(path, j.get<Receipt>());  // valid, so it converts as the checker's own conversion did
  }
  return out;
}

}  // namespace tilewise::receipt
