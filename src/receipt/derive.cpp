#include "receipt/derive.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/checked.hpp"

namespace tilewise::receipt {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double correctness_bound(DType input) { return output_dtype(input) == DType::fp16 ? 5e-3 : 1e-2; }

bool is_correct(const std::optional<double>& rel_err, double bound) {
  return rel_err.has_value() && std::isfinite(*rel_err) && *rel_err >= 0 && *rel_err <= bound;
}

void derive(ArmResult& arm, const Problem& p, double read_bw_gbps) {
  arm.us_median = arm.us_min = arm.us_max = arm.host_us_median = arm.tflops = arm.gbps = std::nullopt;
  arm.weight_gbps = arm.weight_bw_fraction = arm.plain_read_us_median = arm.plain_read_ratio = std::nullopt;
  if (!arm.correct || arm.us.empty()) return;
  const double med = median(arm.us);
  arm.us_median = med;
  arm.us_min = *std::min_element(arm.us.begin(), arm.us.end());
  arm.us_max = *std::max_element(arm.us.begin(), arm.us.end());
  if (!arm.host_us.empty()) arm.host_us_median = median(arm.host_us);
  arm.tflops = flops(p) / med / 1e6;
  arm.gbps = double(min_traffic_bytes(p)) / med / 1e3;
  if (arm.weight_bytes > 0) {
    arm.weight_gbps = double(arm.weight_bytes) / med / 1e3;
    if (read_bw_gbps > 0) arm.weight_bw_fraction = *arm.weight_gbps / read_bw_gbps;
  }
  if (!arm.plain_read_us.empty()) {
    arm.plain_read_us_median = median(arm.plain_read_us);
    arm.plain_read_ratio = *arm.plain_read_us_median / med;
  }
}

const ArmResult* timed_arm(const Result& r, const std::string& name, bool with_options) {
  const auto timed = [](const ArmResult& a) { return a.correct && a.us_median ? &a : nullptr; };
  for (const ArmResult& a : r.arms)
    if (a.arm == name) return timed(a);
  if (!with_options) return nullptr;
  const ArmResult* with = nullptr;
  for (const ArmResult& a : r.arms)
    if (has_options_of(a.arm, name)) {
      if (with && with->arm != a.arm)
        throw Error(fmt::format("arm '{}' could be '{}' or '{}' in {}'s result: name the arm whole", name, with->arm,
                                a.arm, r.problem.name));
      with = &a;
    }
  return with ? timed(*with) : nullptr;
}

bool has_options_of(const std::string& arm, const std::string& name) {
  return arm.size() > name.size() && arm.starts_with(name) && arm[name.size()] == ':';
}

std::set<std::string> arm_names(const Receipt& r) {
  std::set<std::string> out;
  for (const Result& res : r.results)
    for (const ArmResult& a : res.arms) out.insert(a.arm);
  return out;
}

Comparison compare(const ArmResult& arm, const ArmResult& baseline) {
  Comparison c{arm.arm, baseline.arm, 0, true, "none"};
  // All three of each arm: a tampered receipt may carry a median without its range.
  for (const ArmResult* a : {&arm, &baseline})
    if (!a->us_median || !a->us_min || !a->us_max) return c;
  c.speedup = *baseline.us_median / *arm.us_median;
  if (*arm.us_max < *baseline.us_min) c.claim = "faster";
  else if (*arm.us_min > *baseline.us_max) c.claim = "slower";
  c.overlap = c.claim == "none";
  return c;
}

bool strictly_faster(const std::vector<double>& a, const std::vector<double>& b) {
  const auto summary = [](const std::vector<double>& us) {
    ArmResult r;
    if (us.empty()) return r;
    r.us_median = median(us);
    r.us_min = *std::min_element(us.begin(), us.end());
    r.us_max = *std::max_element(us.begin(), us.end());
    return r;
  };
  return compare(summary(a), summary(b)).claim == "faster";
}

double timing_paths_gap(const ArmResult& a) {
  if (!a.us.empty() && a.us.size() == a.host_us.size()) {
    std::vector<double> gaps;
    for (size_t i = 0; i < a.us.size(); ++i) gaps.push_back(std::fabs(a.host_us[i] - a.us[i]) / a.us[i]);
    return median(gaps);
  }
  if (!a.us_median || !a.host_us_median) return 0;
  return std::fabs(*a.host_us_median - *a.us_median) / *a.us_median;
}

double read_bw_gbps(const ReadBandwidth& bw) {
  if (bw.us.empty()) return 0;
  return double(bw.bytes) / median(bw.us) / 1e3;
}

int64_t rotation_set_bytes(const Problem& p) {
  return checked_sum({a_bytes(p), b_bytes(p), c_bytes(p)}, fmt::format("{}: the operands' size", p.name));
}

ClockSummary summarize(const std::vector<ClockSample>& samples) {
  ClockSummary s;
  s.samples = int(samples.size());
  if (samples.empty()) return s;
  std::vector<double> sm, power;
  uint64_t reasons = 0;
  for (const ClockSample& c : samples) {
    sm.push_back(c.sm_mhz);
    power.push_back(c.power_w);
    s.temp_c_max = std::max(s.temp_c_max, c.temp_c);
    reasons |= c.reasons;
  }
  s.sm_mhz_min = int(*std::min_element(sm.begin(), sm.end()));
  s.sm_mhz_max = int(*std::max_element(sm.begin(), sm.end()));
  s.sm_mhz_median = int(std::lround(median(sm)));
  s.power_w_median = median(power);
  s.power_w_max = *std::max_element(power.begin(), power.end());
  s.reasons = reason_names(reasons);
  return s;
}

std::vector<std::string> reason_names(uint64_t reasons) {
  // NVML's clocks-event reason bits (nvmlClocksEventReason*).
  static const std::pair<uint64_t, const char*> names[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},         {0x20, "sw_thermal"},
      {0x40, "hw_thermal"},       {0x80, "hw_power_brake"},     {0x100, "display_clocks"},
  };
  std::vector<std::string> out;
  uint64_t known = 0;
  for (auto [bit, name] : names) {
    known |= bit;
    if (reasons & bit) out.emplace_back(name);
  }
  if (reasons & ~known) out.push_back(fmt::format("other(0x{:x})", reasons & ~known));
  return out;
}

}  // namespace tilewise::receipt
