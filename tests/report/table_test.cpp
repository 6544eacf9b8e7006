#include "report/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "receipt/sample_receipt.hpp"

namespace tilewise::report {
namespace {

using receipt::Receipt;

TEST(Table, OneRowAProblemWithEachArmsFiguresAndTheGeometricMean) {
  const Receipt r = receipt::sample_receipt();
  std::ostringstream out;
  print_table(out, r);
  const std::string text = out.str();
  EXPECT_NE(text.find("sq2048"), std::string::npos) << text;
  EXPECT_NE(text.find("dec_m16_12288"), std::string::npos) << text;
  EXPECT_NE(text.find("cublaslt vs cublaslt-default: geometric mean"), std::string::npos) << text;
  EXPECT_NE(text.find("receipt valid"), std::string::npos) << text;
}

// A declined arm is a cell that says so, and its reason is printed under the table; the problem's other arms stand.
TEST(Table, ADeclinedArmSaysWhy) {
  Receipt r = receipt::sample_receipt();
  receipt::decline(r.results[1].arms[0], "no kernel for this shape");
  receipt::refresh_derived(r);
  std::ostringstream out;
  print_table(out, r);
  const std::string text = out.str();
  EXPECT_NE(text.find("declined |"), std::string::npos) << text;
  EXPECT_NE(text.find("declined dec_m16_12288 fp16 TN [cublaslt]: no kernel for this shape"), std::string::npos) << text;
  EXPECT_NE(summary_line(r.results[1]).find("cublaslt declined"), std::string::npos) << summary_line(r.results[1]);
  EXPECT_NE(summary_line(r.results[1]).find("cublaslt-default "), std::string::npos);
}

}  // namespace
}  // namespace tilewise::report
