// The tuner's family-free view of a configuration: ordered key=value fields.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "tune/config.hpp"

namespace tilewise::tune {
namespace {

TEST(TuneConfig, RoundTripsTheCanonicalText) {
  const std::string text = "block_m=128,block_n=256,stages=4,cluster=1x2";
  const Config c = parse(text);
  ASSERT_EQ(c.fields.size(), 4u);
  EXPECT_EQ(c.fields[3], (std::pair<std::string, std::string>{"cluster", "1x2"}));
  EXPECT_EQ(to_string(c), text);
  EXPECT_EQ(to_string(parse("")), "");
}

TEST(TuneConfig, ApplyReplacesOnlyTheGivenFieldsInPlace) {
  const Config base = parse("a=1,b=2,c=3");
  EXPECT_EQ(to_string(apply(base, parse("c=9,a=0"))), "a=0,b=2,c=9");
  EXPECT_EQ(to_string(project(base, {"c", "a"})), "c=3,a=1");
}

TEST(TuneConfig, BadTextAndUnknownFieldsAreErrors) {
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { parse("a=1,b"); }), "'b' is not key=value"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { parse("=1"); }), "is not key=value"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { parse("a=1,a=2"); }), "a is given twice"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { apply(parse("a=1"), parse("z=2")); }), "no field 'z'"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { project(parse("a=1"), {"z"}); }), "no field 'z'"));
}

}  // namespace
}  // namespace tilewise::tune
