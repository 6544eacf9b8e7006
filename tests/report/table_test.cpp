#include "report/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

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

// An arm that streams weights of its own gets a line under the table: its bytes, time, share of the read bandwidth and
// the plain read of the same bytes; a table without such arms has no such lines.
TEST(Table, AWeightStreamingArmIsSetBesideItsPlainRead) {
  Receipt r = receipt::sample_receipt();
  std::ostringstream plain_table;
  print_table(plain_table, r);
  EXPECT_EQ(plain_table.str().find("weight stream"), std::string::npos) << plain_table.str();

  receipt::ArmResult& a = r.results[1].arms[0];
  a.weight_bytes = 25952256;
  a.plain_read_us.clear();
  for (double us : a.us) a.plain_read_us.push_back(0.5 * us);
  receipt::refresh_derived(r);
  std::ostringstream out;
  print_table(out, r);
  const std::string text = out.str();
  EXPECT_NE(text.find("plain/arm"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{:.2f}", *a.plain_read_us_median)), std::string::npos) << text;
  EXPECT_NE(text.find("0.500"), std::string::npos) << text;
  EXPECT_NE(text.find("25.95"), std::string::npos) << text;
}

}  // namespace
}  // namespace tilewise::report
