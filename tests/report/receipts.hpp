#pragma once
// Receipts for the report's tests, made from the sample receipt (sq2048 bf16 TN, where the first arm is faster, and
// dec_m16_12288 fp16 TN, ranges overlapping), and as the page loads them.
#include <algorithm>
#include <string>

#include "receipt/sample_receipt.hpp"
#include "report/page.hpp"

namespace tilewise::testkit {

// As load_receipts would give it for a page in a folder beside results/, with the checker's verdict given rather
// than computed.
inline report::PageReceipt page(const receipt::Receipt& r, const std::string& file, bool valid = true) {
  return report::PageReceipt{
      file,
      file,
      r,
      {file, valid, valid ? std::vector<std::string>{} : std::vector<std::string>{"bad"}, r.results.size()},
      "../results/" + file};
}

// The sample run cold at `created`, its first arm named `arm` beside cublaslt-default, every problem of `suite`.
inline receipt::Receipt selected_run(const std::string& created, const std::string& arm = "selected",
                                     const std::string& suite = "llm24") {
  receipt::Receipt r = receipt::sample_receipt();
  r.created = created;
  r.command = "tilewise bench --suite suites/" + suite + ".txt --arms " + arm + ",cublaslt-default --cold -o x.json";
  r.protocol.cold = true;
  r.protocol.working_set_bytes = receipt::cold_l2_multiple * r.machine.l2_bytes;  // as the checker asks of a cold run
  r.protocol.arms = {arm, "cublaslt-default"};
  for (receipt::Result& res : r.results) {
    const int64_t set = receipt::rotation_set_bytes(res.problem);
    res.rotation_sets = int((r.protocol.working_set_bytes + set - 1) / set);
    res.working_set_bytes = res.rotation_sets * set;
    r.protocol.rotation_sets = std::max(r.protocol.rotation_sets, res.rotation_sets);
    res.suite = suite;
    res.arms[0].arm = arm;
  }
  receipt::refresh_derived(r);
  return r;
}

// Adds cuBLASLt's best candidate ("cublaslt") to every result, `factor` times the default's samples.
inline void add_best(receipt::Receipt& r, double factor) {
  r.protocol.arms.push_back("cublaslt");
  for (receipt::Result& res : r.results) {
    receipt::ArmResult best = res.arms[1];
    best.arm = "cublaslt";
    for (double& us : best.us) us *= factor;
    res.arms.push_back(best);
  }
  receipt::refresh_derived(r);
}

}  // namespace tilewise::testkit
