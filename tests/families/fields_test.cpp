// The families' one configuration reader: the tokenizer (ordered key=value fields, what the tuner sees) and the
// reader every family's parse_config takes its values from, with one error form naming the field and the value.
#include <gtest/gtest.h>

#include "core/problem.hpp"
#include "expect_error.hpp"
#include "families/fields.hpp"

namespace tilewise::families {
namespace {

using testkit::Contains;
using testkit::error_of;

TEST(Fields, RoundTripTheText) {
  const std::string text = "block_m=128,block_n=256,stages=4,cluster=1x2";
  const Fields f = parse_fields(text);
  ASSERT_EQ(f.fields.size(), 4u);
  EXPECT_EQ(f.fields[3], (std::pair<std::string, std::string>{"cluster", "1x2"}));
  EXPECT_EQ(keys(f), (std::vector<std::string>{"block_m", "block_n", "stages", "cluster"}));
  EXPECT_EQ(to_string(f), text);
  EXPECT_EQ(to_string(parse_fields("")), "");
  EXPECT_EQ(*find(parse_fields("a="), "a"), "");  // an empty value is a value; its family judges it
}

TEST(Fields, ApplyReplacesOnlyTheGivenFieldsInPlace) {
  const Fields base = parse_fields("a=1,b=2,c=3");
  EXPECT_EQ(to_string(apply(base, parse_fields("c=9,a=0"))), "a=0,b=2,c=9");
  EXPECT_EQ(to_string(project(base, {"c", "a"})), "c=3,a=1");
}

TEST(Fields, OverlayReplacesGivenFieldsAndJoinsOnesTheBaseLeavesOut) {
  EXPECT_EQ(overlay("block_m=128,stages=4,split=1", "stages=8;split=2", "arm a"), "block_m=128,stages=8,split=2");
  EXPECT_EQ(overlay("block_m=128,stages=4", "pdl=1", "arm a"), "block_m=128,stages=4,pdl=1");
  EXPECT_EQ(overlay("block_m=128", "", "arm a"), "block_m=128");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { overlay("block_m=128", "garbage", "arm sm90:int4@garbage"); }),
                                "arm sm90:int4@garbage 'garbage': 'garbage' is not key=value"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { overlay("block_m=128", "stages=2;stages=3", "arm b"); }),
                                "stages is given twice"));
}

TEST(Fields, BadTextAndUnknownFieldsAreErrors) {
  EXPECT_TRUE(Contains(error_of([] { parse_fields("a=1,b"); }), "configuration 'a=1,b': 'b' is not key=value"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields("=1"); }), "'=1' is not key=value"));
  // An arm's ';' separators where a configuration takes ',' name the separator, not a value that is not an integer.
  EXPECT_TRUE(Contains(error_of([] { parse_fields("block_m=16;block_n=256"); }),
                       "'block_m=16;block_n=256' holds more than one '=': fields are separated by ','"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields("a=1,a=2"); }), "a is given twice"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields("a=1,"); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields(",a=1"); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields("a=1,,b=2"); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { parse_fields(","); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { apply(parse_fields("a=1"), parse_fields("z=2")); }), "no field 'z'"));
  EXPECT_TRUE(Contains(error_of([] { project(parse_fields("a=1"), {"z"}); }), "no field 'z'"));
}

enum class Shape { round, square };
constexpr Named<Shape> kShapes[] = {{"round", Shape::round}, {"square", Shape::square}};

struct Toy {
  int size = 0;
  Shape shape = Shape::round;
  bool big = false;
  long long id = 0;
  DType type = DType::bf16;
};

Toy read_toy(std::string_view text) {
  FieldReader r("toy", text);
  Toy t;
  t.size = r.integer("size");
  t.shape = r.choice("shape", kShapes, Shape::round);
  t.big = r.flag("big", false);
  t.id = r.integer_in("id", 0, 255, 7);
  t.type = r.parsed("type", parse_dtype, DType::bf16);
  r.finish();
  return t;
}

TEST(FieldReader, ReadsRequiredAndDefaultedFieldsInAnyOrder) {
  const Toy t = read_toy("shape=square,size=-3,type=fp8,big=1");
  EXPECT_EQ(t.size, -3);
  EXPECT_EQ(t.shape, Shape::square);
  EXPECT_TRUE(t.big);
  EXPECT_EQ(t.id, 7);
  EXPECT_EQ(t.type, DType::fp8_e4m3);
  EXPECT_EQ(name_of(kShapes, Shape::square), "square");
}

// Every refusal names the family, the text, the field and the value.
TEST(FieldReader, EveryErrorNamesTheFieldAndTheValue) {
  const auto error = [](std::string_view text) { return error_of([&] { read_toy(text); }); };
  EXPECT_EQ(error("shape=round"), "toy config 'shape=round': size is required");
  EXPECT_EQ(error("size=x"), "toy config 'size=x': size=x is not an integer");
  EXPECT_EQ(error("size=1.5"), "toy config 'size=1.5': size=1.5 is not an integer");
  EXPECT_EQ(error("size= 1"), "toy config 'size= 1': size= 1 is not an integer");
  EXPECT_EQ(error("size="), "toy config 'size=': size= is not an integer");
  EXPECT_EQ(error("size=4294967296"), "toy config 'size=4294967296': size=4294967296 is not a 32-bit integer");
  EXPECT_EQ(error("size=99999999999999999999999"),
            "toy config 'size=99999999999999999999999': size=99999999999999999999999 is not a 32-bit integer");
  EXPECT_EQ(error("size=1,id=256"), "toy config 'size=1,id=256': id=256 is not an integer in 0..255");
  EXPECT_EQ(error("size=1,id=-1"), "toy config 'size=1,id=-1': id=-1 is not an integer in 0..255");
  EXPECT_EQ(error("size=1,shape=oval"), "toy config 'size=1,shape=oval': shape=oval is not one of round, square");
  EXPECT_EQ(error("size=1,big=yes"), "toy config 'size=1,big=yes': big=yes is not one of 0, 1");
  EXPECT_EQ(error("size=1,type=fp4"),
            "toy config 'size=1,type=fp4': type=fp4 is refused: unknown dtype 'fp4' (expected bf16, fp16 or fp8)");
  EXPECT_EQ(error("size=1,colour=red"),
            "toy config 'size=1,colour=red': unknown field 'colour' (known: size, shape, big, id, type)");
  EXPECT_EQ(error("size=1,size=2"), "toy config 'size=1,size=2': size is given twice");
  EXPECT_EQ(error("size"), "toy config 'size': 'size' is not key=value");
}

}  // namespace
}  // namespace tilewise::families
