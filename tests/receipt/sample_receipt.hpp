#pragma once
// A small synthetic receipt that check() accepts: two problems, the two vendor arms, three repeats, clocks and a
// read-bandwidth measurement, every derived figure computed by receipt/derive.hpp. Tests tamper with a copy.
#include <vector>

#include <nlohmann/json.hpp>

#include "core/problem.hpp"
#include "receipt/derive.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::receipt {

// Recomputes every derived figure of `r` from its samples, as the bench does before writing: arm summaries,
// comparisons against the baseline, the read bandwidth. Tests call it after changing samples.
inline void refresh_derived(Receipt& r) {
  r.machine.read_bw_gbps = read_bw_gbps(r.machine.read_bw);
  for (Result& res : r.results) {
    for (ArmResult& a : res.arms) derive(a, res.problem, r.machine.read_bw_gbps);
    res.comparisons.clear();
    const ArmResult* base = nullptr;
    for (const ArmResult& a : res.arms)
      if (a.arm == r.protocol.baseline) base = &a;
    if (!base || !base->us_median) continue;
    for (const ArmResult& a : res.arms)
      if (&a != base && a.us_median) res.comparisons.push_back(compare(a, *base));
  }
}

// Makes arm `a` what the bench writes for an arm whose family does not take the problem: named, with its bound,
// and nothing of a run.
inline void decline(ArmResult& a, const std::string& why) {
  ArmResult d;
  d.arm = a.arm, d.bound = a.bound, d.declined = why;
  a = d;
}

inline ClockSample clock_sample(double t_s, int sm_mhz, double power_w, int temp_c, uint64_t reasons = 0) {
  return ClockSample{t_s, sm_mhz, 3201, power_w, temp_c, reasons};
}

inline ArmResult sample_arm(const char* name, const Problem& p, const char* canonical, double rel_err,
                            std::vector<double> us, std::vector<double> host_us, ClockSummary clock) {
  ArmResult a;
  a.arm = name;
  a.config = {{"family", "cublaslt"}, {"canonical", canonical}};
  a.config_text = canonical;
  a.correct = true;
  a.rel_err = rel_err;
  a.max_abs_err = rel_err * 4;
  a.bound = correctness_bound(p.dtype);
  a.launches = 800;
  a.host_launches = 200;
  a.us = std::move(us);
  a.host_us = std::move(host_us);
  a.clock = std::move(clock);
  return a;
}

inline Receipt sample_receipt() {
  Receipt r;
  r.created = "2025-06-01T12:00:00Z";
  r.command = "tilewise bench --suite suites/square.txt --dtype bf16 --layout TN --repeats 3";
  r.notes = {"synthetic receipt for the unit tests"};
  r.tool = Tool{"tilewise", "0.1.0", "8459607", false};

  Machine& m = r.machine;
  m.gpu = "NVIDIA H200";
  m.cc = "9.0";
  m.driver = "570.124.06";
  m.cuda_runtime = "12.8";
  m.cublaslt = "12.8.4";
  m.nvrtc = "12.8";
  m.sm_count = 132;
  m.l2_bytes = 52428800;
  m.smem_per_block_optin = 232448;
  m.memory_bytes = 150754820096;
  m.sm_clock_max_mhz = 1980;
  m.mem_clock_max_mhz = 3201;
  m.power_limit_w = 700;
  m.read_bw = ReadBandwidth{int64_t{2} << 30, {510.0, 505.0, 508.0}};  // about 4.2 TB/s

  Protocol& pr = r.protocol;
  pr.warmup_s = 10.5;
  pr.repeats = 3;
  pr.cold = false;
  pr.rotation_sets = 1;
  pr.working_set_bytes = 0;
  pr.arms = {"cublaslt", "cublaslt-default"};
  pr.baseline = "cublaslt-default";
  pr.seed = 42;
  pr.graph_target_ms = 20;
  pr.replays = 3;
  pr.selection_rounds = 5;
  pr.rewarm_ms = 100;

  r.clocks.available = true;
  r.clocks.before = clock_sample(0.0, 1980, 95, 31);
  r.clocks.after = clock_sample(14.2, 1755, 640, 58, 0x4);
  const std::vector<ClockSample> during = {
      clock_sample(10.6, 1710, 655, 55, 0x4), clock_sample(11.1, 1695, 668, 56, 0x4),
      clock_sample(11.6, 1700, 660, 56, 0x4), clock_sample(12.1, 1725, 640, 57, 0),
      clock_sample(12.6, 1700, 650, 57, 0x4)};
  r.clocks.during = summarize(during);  // median 1700 MHz

  // sq2048 bf16 TN: about 26 us (660 TFLOPS); the tuned arm beats the heuristic's first choice.
  Result sq;
  sq.problem = make_problem("sq2048", 2048, 2048, 2048, DType::bf16, Layout::TN);
  sq.rotation_sets = 1;
  sq.working_set_bytes = rotation_set_bytes(sq.problem);
  sq.seed = 42;
  sq.reference = ReferenceCheck{256, 3.1e-7, reference_bound, true};
  sq.arms.push_back(sample_arm("cublaslt", sq.problem,
                               "algo=66,tile=23,stages=16,splitk=1,reduction=0,swizzle=1,custom=0,inner=0,cluster=5",
                               2.1e-3, {25.9, 26.1, 26.0}, {27.8, 28.1, 27.9},
                               summarize({during[0], during[1], during[2]})));
  sq.arms[0].candidates = {
      Candidate{sq.arms[0].config, true, 2.1e-3, 26.0, ""},
      Candidate{{{"family", "cublaslt"}, {"canonical", "algo=31,tile=20,stages=0,splitk=1,reduction=0,swizzle=0,"
                                                       "custom=0,inner=0,cluster=0"}},
                true, 2.3e-3, 27.5, ""},
      Candidate{{{"family", "cublaslt"}, {"canonical", "algo=71,tile=24,stages=0,splitk=2,reduction=4,swizzle=0,"
                                                       "custom=0,inner=0,cluster=0"}},
                false, std::nullopt, std::nullopt, "CUBLAS_STATUS_NOT_SUPPORTED"},
  };
  sq.arms.push_back(sample_arm("cublaslt-default", sq.problem,
                               "algo=31,tile=20,stages=0,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=0",
                               2.3e-3, {27.4, 27.6, 27.5}, {29.2, 29.0, 29.5},
                               summarize({during[2], during[3], during[4]})));

  // A decode-like fp16 shape: about 32 us, reading ~100 MB; the arms' ranges overlap, so no claim.
  Result dec;
  dec.problem = make_problem("dec_m16_12288", 16, 12288, 4096, DType::fp16, Layout::TN);
  dec.rotation_sets = 1;
  dec.working_set_bytes = rotation_set_bytes(dec.problem);
  dec.seed = 43;
  dec.reference = ReferenceCheck{256, 2.4e-7, reference_bound, true};
  dec.arms.push_back(sample_arm("cublaslt", dec.problem,
                                "algo=66,tile=48,stages=20,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=1",
                                1.2e-3, {32.1, 31.8, 32.4}, {34.0, 33.6, 34.4}, summarize({during[0], during[4]})));
  dec.arms.push_back(sample_arm("cublaslt-default", dec.problem,
                                "algo=66,tile=48,stages=20,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=1",
                                1.2e-3, {32.2, 32.0, 32.6}, {34.1, 33.9, 34.2}, summarize({during[1], during[3]})));

  r.results = {sq, dec};
  r.skipped = {Skipped{"sq16384", "skipped by --max-size"}};
  refresh_derived(r);
  r.problems = {};
  r.valid = true;
  return r;
}

}  // namespace tilewise::receipt
