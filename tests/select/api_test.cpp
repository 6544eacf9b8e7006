// The library API's parts that need no GPU: what TILEWISE_TUNE may say.
#include <gtest/gtest.h>

#include <cstdlib>

#include "expect_error.hpp"
#include "select/api.hpp"

namespace tilewise {
namespace {

TuneMode mode_with(const char* value) {
  if (value) ::setenv("TILEWISE_TUNE", value, 1);
  else ::unsetenv("TILEWISE_TUNE");
  const TuneMode m = tune_mode_from_environment();
  ::unsetenv("TILEWISE_TUNE");
  return m;
}

TEST(TuneMode, TheEnvironmentSaysOffOnOrRecord) {
  EXPECT_EQ(mode_with(nullptr), TuneMode::off);
  EXPECT_EQ(mode_with(""), TuneMode::off);
  EXPECT_EQ(mode_with("0"), TuneMode::off);
  EXPECT_EQ(mode_with("off"), TuneMode::off);
  EXPECT_EQ(mode_with("1"), TuneMode::on);
  EXPECT_EQ(mode_with("on"), TuneMode::on);
  EXPECT_EQ(mode_with("record"), TuneMode::record);
  ::setenv("TILEWISE_TUNE", "yes", 1);
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { tune_mode_from_environment(); }),
                                "TILEWISE_TUNE='yes' is not one of 0, off, 1, on, record"));
  ::unsetenv("TILEWISE_TUNE");
}

}  // namespace
}  // namespace tilewise
