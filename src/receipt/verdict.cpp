#include "receipt/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "receipt/derive.hpp"

namespace tilewise::receipt {

const std::vector<std::string>& prediction_metrics() {
  static const std::vector<std::string> metrics = {"us_median",   "tflops",      "gbps",
                                                    "bandwidth_fraction", "speedup", "weight_gbps",
                                                    "weight_bw_fraction", "plain_read_ratio"};
  return metrics;
}

namespace {

const ArmResult* find_arm(const Result& res, const std::string& name) {
  for (const ArmResult& a : res.arms)
    if (a.arm == name) return &a;
  return nullptr;
}

// The arm's figure, or why there is none.
std::string unusable(const ArmResult* a, const std::string& name) {
  if (!a) return fmt::format("arm {} is not in the result", name);
  if (!a->declined.empty()) return fmt::format("arm {} declined the problem: {}", name, a->declined);
  if (!a->error.empty()) return fmt::format("arm {} did not run: {}", name, a->error);
  if (!a->correct) return fmt::format("arm {} was incorrect", name);
  if (!a->us_median) return fmt::format("arm {} has no timing", name);
  return "";
}

}  // namespace

const Result* find_result(const Receipt& r, const std::string& name, const std::string& dtype, const std::string& layout) {
  for (const Result& res : r.results)
    if (res.problem.name == name && to_string(res.problem.dtype) == dtype && to_string(res.problem.layout) == layout)
      return &res;
  return nullptr;
}

const Skipped* find_skipped(const Receipt& r, const std::string& name, const std::string& dtype, const std::string& layout) {
  const std::string selector = fmt::format("{} {} {} ", name, dtype, layout);  // describe()'s start
  for (const Skipped& s : r.skipped)
    if (s.problem.starts_with(selector)) return &s;
  return nullptr;
}

void judge(Prediction& p, const Receipt& r) {
  p.measured.reset();
  p.verdict = "not measured";
  p.reason.clear();
  p.claim.clear();
  const std::string selector = fmt::format("{} {} {}", p.problem, p.dtype, p.layout);
  const Result* res = find_result(r, p.problem, p.dtype, p.layout);
  if (!res) {
    const Skipped* s = find_skipped(r, p.problem, p.dtype, p.layout);
    p.reason = s ? fmt::format("{} was skipped: {}", selector, s->reason)
                 : fmt::format("{} is not among the results", selector);
    return;
  }
  const ArmResult* arm = find_arm(*res, p.arm);
  if (std::string why = unusable(arm, p.arm); !why.empty()) {
    p.reason = why;
    return;
  }
  if (p.metric == "us_median") p.measured = arm->us_median;
  else if (p.metric == "tflops") p.measured = arm->tflops;
  else if (p.metric == "gbps") p.measured = arm->gbps;
  else if (p.metric == "bandwidth_fraction") {
    if (r.machine.read_bw_gbps <= 0) {
      p.reason = "the read bandwidth was not measured";
      return;
    }
    p.measured = *arm->gbps / r.machine.read_bw_gbps;
  } else if (p.metric == "weight_gbps" || p.metric == "weight_bw_fraction") {
    const std::optional<double>& v = p.metric == "weight_gbps" ? arm->weight_gbps : arm->weight_bw_fraction;
    if (!v) {
      p.reason = fmt::format("arm {} reports no weight stream{}", p.arm,
                             arm->weight_bytes > 0 ? " (the read bandwidth was not measured)" : "");
      return;
    }
    p.measured = v;
  } else if (p.metric == "plain_read_ratio") {
    if (!arm->plain_read_ratio) {
      p.reason = fmt::format("arm {} has no plain read of its weight bytes beside it", p.arm);
      return;
    }
    p.measured = arm->plain_read_ratio;
  } else if (p.metric == "speedup") {
    const ArmResult* base = find_arm(*res, p.baseline);
    if (std::string why = unusable(base, p.baseline); !why.empty()) {
      p.reason = why;
      return;
    }
    const Comparison c = compare(*arm, *base);
    p.measured = c.speedup;
    p.claim = c.claim;
  } else {
    p.reason = fmt::format("unknown metric '{}'", p.metric);
    return;
  }
  p.verdict = *p.measured > p.high ? "missed high" : *p.measured < p.low ? "missed low" : "held";
}

}  // namespace tilewise::receipt
