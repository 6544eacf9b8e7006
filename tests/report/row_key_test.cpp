// The cells that name a first-screen row: every table that lists rows heads and fills them alike.
#include "report/row_key.hpp"

#include <gtest/gtest.h>

namespace tilewise::report {
namespace {

std::vector<std::string> texts(const std::vector<Cell>& cells) {
  std::vector<std::string> out;
  for (const Cell& c : cells) out.push_back(c.text);
  return out;
}

CurrentRow row(Mode mode, const std::string& suite, bool aligned) {
  CurrentRow r;
  r.mode = mode;
  r.gpu = "NVIDIA H200";
  r.figures.suite = suite;
  r.figures.orientation = "nn.Linear";
  r.figures.dtype = "bf16";
  r.figures.aligned = aligned;
  return r;
}

TEST(RowKey, TheCellsFollowTheirHeadsWithTheModeAndGpuFirst) {
  const CurrentRow r = row(Mode::first_use, "llm24-linear", true);
  EXPECT_EQ(texts(key_head()), (std::vector<std::string>{"suite", "orientation", "dtype"}));
  EXPECT_EQ(texts(key_cells(r)), (std::vector<std::string>{"llm24-linear", "nn.Linear", "bf16"}));
  EXPECT_EQ(texts(mode_key_head()), (std::vector<std::string>{"mode", "GPU", "suite", "orientation", "dtype"}));
  EXPECT_EQ(texts(mode_key_cells(r)),
            (std::vector<std::string>{mode_arm(Mode::first_use), "NVIDIA H200", "llm24-linear", "nn.Linear", "bf16"}));
}

TEST(RowKey, ARowWithoutASuiteShowsADashAndTheLdcClassNamesTheCliff) {
  EXPECT_EQ(key_cells(row(Mode::defaults, "", true))[0].text, "-");
  EXPECT_EQ(ldc_class_cell(row(Mode::defaults, "s", true)).text, "aligned");
  EXPECT_EQ(ldc_class_cell(row(Mode::defaults, "s", false)).text, "not a multiple of 8");
}

}  // namespace
}  // namespace tilewise::report
