#pragma once
// The terminal view of a receipt: one row per problem, per arm its median time and throughput, and each arm's
// speedup over the baseline with the claim rule's verdict; then why an arm declined a problem or a problem was skipped.
#include <iosfwd>

#include "receipt/receipt.hpp"

namespace tilewise::report {

void print_table(std::ostream& out, const receipt::Receipt& r);
// One line for progress: "d4k_qkv_pf bf16 TN 4096x8192x4096  cublaslt 392.7 us 700 TF/s | ..."
std::string summary_line(const receipt::Result& result);

}  // namespace tilewise::report
