#include "report/table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

namespace tilewise::report {

namespace {

const receipt::ArmResult* find_arm(const receipt::Result& r, const std::string& name) {
  for (const auto& a : r.arms)
    if (a.arm == name) return &a;
  return nullptr;
}

std::string shape(const Problem& p) { return fmt::format("{}x{}x{}", p.M, p.N, p.K); }

std::string arm_cell(const receipt::ArmResult* a) {
  if (!a) return fmt::format("{:>28}", "-");
  if (!a->declined.empty()) return fmt::format("{:>28}", "declined");
  if (!a->error.empty()) return fmt::format("{:>28}", "ERROR");
  if (!a->correct) return fmt::format("{:>28}", "WRONG");
  if (!a->us_median) return fmt::format("{:>28}", "-");
  return fmt::format("{:>10.2f} {:>8.1f} {:>8.0f}", *a->us_median, *a->tflops, *a->gbps);
}

std::string claim_mark(const std::string& claim) { return claim == "faster" ? "+" : claim == "slower" ? "-" : "~"; }

// The arms that stream weights of their own (decode GEMV): how near each came to the read bandwidth the run measured
// over 4 GB, and to a plain read of the same bytes timed beside it, which pays the same launch and ramp.
void print_weight_streams(std::ostream& out, const receipt::Receipt& r) {
  bool any = false;
  for (const auto& res : r.results)
    for (const auto& a : res.arms) {
      if (a.weight_bytes <= 0 || !a.us_median) continue;
      if (!any)
        fmt::print(out, "{:<14} {:<5} {:<34} {:>9} {:>9} {:>9} {:>11} {:>10}\n", "weight stream", "dtype", "arm",
                   "MB", "us", "of read", "plain us", "plain/arm");
      any = true;
      const auto fraction = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "-"; };
      const std::string plain = a.plain_read_us_median ? fmt::format("{:.2f}", *a.plain_read_us_median) : "-";
      fmt::print(out, "{:<14} {:<5} {:<34} {:>9.2f} {:>9.2f} {:>9} {:>11} {:>10}\n", res.problem.name,
                 to_string(res.problem.dtype), a.arm.substr(0, 34), double(a.weight_bytes) / 1e6, *a.us_median,
                 fraction(a.weight_bw_fraction), plain, fraction(a.plain_read_ratio));
    }
}

}  // namespace

std::string summary_line(const receipt::Result& r) {
  std::string line = fmt::format("{} {} {} {}", r.problem.name, to_string(r.problem.dtype), to_string(r.problem.layout),
                                 shape(r.problem));
  for (const auto& a : r.arms) {
    if (a.us_median) line += fmt::format("  {} {:.2f} us {:.1f} TF/s", a.arm, *a.us_median, *a.tflops);
    else line += fmt::format("  {} {}", a.arm, !a.declined.empty() ? "declined" : a.error.empty() ? "WRONG" : "ERROR");
  }
  for (const auto& c : r.comparisons) line += fmt::format("  {:.3f}x{}", c.speedup, claim_mark(c.claim));
  return line;
}

void print_table(std::ostream& out, const receipt::Receipt& r) {
  const auto& arms = r.protocol.arms;
  std::string head = fmt::format("{:<14} {:<5} {:<3} {:>20}", "problem", "dtype", "lay", "MxNxK");
  std::string unit = fmt::format("{:<14} {:<5} {:<3} {:>20}", "", "", "", "");
  for (const auto& a : arms) {
    head += fmt::format(" | {:>28}", a);
    unit += fmt::format(" | {:>10} {:>8} {:>8}", "us", "TF/s", "GB/s");
  }
  std::vector<std::string> compared;
  for (const auto& a : arms)
    if (a != r.protocol.baseline) compared.push_back(a);
  for (const auto& a : compared) head += fmt::format(" | {:>12}", a.substr(0, 12));
  for (size_t i = 0; i < compared.size(); ++i) unit += fmt::format(" | {:>12}", "vs " + r.protocol.baseline.substr(0, 9));
  fmt::print(out, "{}\n{}\n{}\n", head, unit, std::string(head.size(), '-'));

  std::map<std::string, std::vector<double>> speedups;
  for (const auto& res : r.results) {
    std::string row = fmt::format("{:<14} {:<5} {:<3} {:>20}", res.problem.name, to_string(res.problem.dtype),
                                  to_string(res.problem.layout), shape(res.problem));
    for (const auto& a : arms) row += " | " + arm_cell(find_arm(res, a));
    for (const auto& a : compared) {
      const auto c = std::find_if(res.comparisons.begin(), res.comparisons.end(), [&](auto& x) { return x.arm == a; });
      if (c == res.comparisons.end()) {
        row += fmt::format(" | {:>12}", "-");
        continue;
      }
      row += fmt::format(" | {:>11.3f}{}", c->speedup, claim_mark(c->claim));
      speedups[a].push_back(c->speedup);
    }
    fmt::print(out, "{}\n", row);
  }
  for (const auto& [arm, v] : speedups) {
    double log_sum = 0;
    for (double x : v) log_sum += std::log(x);
    fmt::print(out, "{} vs {}: geometric mean {:.3f}x over {} cases (+ faster, - slower, ~ ranges overlap)\n", arm,
               r.protocol.baseline, std::exp(log_sum / double(v.size())), v.size());
  }
  print_weight_streams(out, r);
  for (const auto& res : r.results)
    for (const auto& a : res.arms)
      if (!a.declined.empty()) fmt::print(out, "declined {} {} {} [{}]: {}\n", res.problem.name, to_string(res.problem.dtype),
                                          to_string(res.problem.layout), a.arm, a.declined);
  for (const auto& s : r.skipped) fmt::print(out, "skipped {}: {}\n", s.problem, s.reason);
  if (r.valid) fmt::print(out, "receipt valid: no problems recorded\n");
  else {
    fmt::print(out, "receipt INVALID, {} problem{}:\n", r.problems.size(), r.problems.size() == 1 ? "" : "s");
    for (const auto& p : r.problems) fmt::print(out, "  - {}\n", p);
  }
}

}  // namespace tilewise::report
