#include "core/suite.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/problem.hpp"
#include "expect_error.hpp"

namespace tilewise {
namespace {

Suite parse(const std::string& text) {
  std::istringstream in(text);
  return parse_suite(in, "my/suite.txt");
}

using tilewise::testkit::Contains;

// The message parse_suite throws for `text`, or a test failure and "".
std::string parse_error(const std::string& text) {
  return tilewise::testkit::error_of([&] { parse(text); });
}

// Two good lines (1 comment, 1 problem, 1 blank), then `bad` on line 4.
std::string on_line_4(const std::string& bad) { return "# header\nfirst 1 2 3\n\n" + bad + "\n"; }

TEST(ParseSuite, ReadsProblemsSkippingCommentsAndBlankLines) {
  const Suite s = parse(
      "# name M N K\n"
      "\n"
      "sq256   256 256 256   # trailing comment\n"
      "   \t  \n"
      "\tdec_m1 1 12288 4096\n"
      "  # indented comment\n"
      "a.b-c_D9 7 8 9#comment with no space\n");
  EXPECT_EQ(s.path, "my/suite.txt");
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].name, "sq256");
  EXPECT_EQ(s.entries[0].M, 256);
  EXPECT_EQ(s.entries[0].line, 3);
  EXPECT_EQ(s.entries[1].name, "dec_m1");
  EXPECT_EQ(s.entries[1].M, 1);
  EXPECT_EQ(s.entries[1].N, 12288);
  EXPECT_EQ(s.entries[1].K, 4096);
  EXPECT_EQ(s.entries[1].line, 5);
  EXPECT_EQ(s.entries[2].name, "a.b-c_D9");
  EXPECT_EQ(s.entries[2].M, 7);
  EXPECT_EQ(s.entries[2].N, 8);
  EXPECT_EQ(s.entries[2].K, 9);
  EXPECT_EQ(s.entries[2].line, 7);
}

TEST(ParseSuite, LastLineWithoutNewline) {
  const Suite s = parse("x 1 2 3");
  ASSERT_EQ(s.entries.size(), 1u);
  EXPECT_EQ(s.entries[0].K, 3);
}

TEST(ParseSuite, TooFewFieldsNamesPathAndLine) {
  const std::string msg = parse_error(on_line_4("sq 1 2"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "expected 'name M N K', got 3 fields"));
}

TEST(ParseSuite, AFifthFieldMustBeALineSetting) {
  const std::string msg = parse_error(on_line_4("sq 1 2 3 4"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "'4' is not dtype=, layout= or pad= with a value"));
}

TEST(ParseSuite, ALineMayFixItsDtypeLayoutAndPadding) {
  const Suite s = parse("a 1 2 3 dtype=fp16\nb 4 5 6 layout=NN pad=8 dtype=bf16\nc 7 8 9 pad=0\n");
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].dtype, DType::fp16);
  EXPECT_FALSE(s.entries[0].layout);
  EXPECT_EQ(s.entries[1].layout, Layout::NN);
  EXPECT_EQ(s.entries[1].dtype, DType::bf16);
  EXPECT_EQ(s.entries[1].pad, 8);
  EXPECT_EQ(s.entries[2].pad, 0);
  EXPECT_FALSE(s.entries[2].dtype);
}

TEST(ParseSuite, BadLineSettingsNameTheLineAndTheSetting) {
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 dtype=fp32")), "my/suite.txt:4: unknown dtype 'fp32'"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 layout=TT")), "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 pad=-8")), "my/suite.txt:4: pad = -8 must be 0 or more"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 pad=x")), "pad 'x' is not an integer"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 dtype=")), "'dtype=' is not dtype=, layout= or pad= with a value"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 pad=8 pad=8")), "my/suite.txt:4: pad is given twice"));
  // The fuzzer's: a pad that overflowed the leading dimension it was added to (tests/fuzz/regressions/suite/).
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 pad=9223372036854775807")),
                       "my/suite.txt:4: pad = 9223372036854775807 exceeds 2147483647"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("sq 1 2 3 seed=4")), "unknown field 'seed'"));
}

TEST(ExpandSuites, ALineThatFixesItsDtypeAndLayoutIsTakenInThoseAlone) {
  const std::string path = ::testing::TempDir() + "/fixed_suite.txt";
  {
    std::ofstream out(path);
    out << "free 64 64 64\nfixed 64 64 64 dtype=fp16 layout=NN pad=8\n";
  }
  const std::vector<SuiteCase> cases = expand_suites({path}, {}, {DType::bf16, DType::fp8_e4m3}, {Layout::TN});
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[2].entry.name, "fixed");
  EXPECT_EQ(cases[2].dtype, DType::fp16);
  EXPECT_EQ(cases[2].layout, Layout::NN);
  EXPECT_EQ(make_problem(cases[2], 8).lda, 64 + 8 + 8);  // the command line's pad and the line's
}

TEST(ParseSuite, SingleFieldIsWrongCount) {
  const std::string msg = parse_error(on_line_4("lonely"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "got 1 field"));
}

TEST(ParseSuite, NonIntegerSizeNamesFieldAndText) {
  std::string msg = parse_error(on_line_4("sq 1 x 3"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "N 'x' is not an integer"));

  msg = parse_error(on_line_4("sq 1 2 12abc"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "K '12abc' is not an integer"));

  msg = parse_error(on_line_4("sq 1.5 2 3"));
  EXPECT_TRUE(Contains(msg, "M '1.5' is not an integer"));
}

TEST(ParseSuite, NegativeSizeIsRefused) {
  const std::string msg = parse_error(on_line_4("sq -5 2 3"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "M = -5 must be positive"));
}

TEST(ParseSuite, ZeroSizeIsRefused) {
  const std::string msg = parse_error(on_line_4("sq 1 2 0"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "K = 0 must be positive"));
}

TEST(ParseSuite, OutOfRangeIntegerIsRefused) {
  const std::string msg = parse_error(on_line_4("sq 1 99999999999999999999 3"));
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "N '99999999999999999999' is out of range"));
}

TEST(ParseSuite, BadNameCharactersAreRefused) {
  for (const std::string bad : {"a/b", "sq*", "x,y"}) {
    const std::string msg = parse_error(on_line_4(bad + " 1 2 3"));
    EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
    EXPECT_TRUE(Contains(msg, "name '" + bad + "'"));
  }
}

// A NUL once cut the message quoting the line short, and other bytes were printed raw: a byte that is not printable
// ASCII is named by its value and column (a comment may hold any text).
TEST(ParseSuite, ABytePastPrintableAsciiIsNamedByValueAndColumn) {
  EXPECT_TRUE(Contains(parse_error(on_line_4("caf\xc3\xa9 1 2 3")), "my/suite.txt:4: byte 0xc3 at column 4 is not printable ASCII"));
  EXPECT_TRUE(Contains(parse_error(on_line_4(std::string("nul 1 2 3\0", 10) + " 4")), "byte 0x00 at column 10"));
  EXPECT_TRUE(Contains(parse_error(on_line_4("bell\a 1 2 3")), "byte 0x07 at column 5"));
  EXPECT_EQ(parse("ok 1 2 3\t# caf\xc3\xa9\r\n").entries.size(), 1u);
}

TEST(ParseSuite, DuplicateNameNamesTheSecondLine) {
  const std::string msg = parse_error("a 1 2 3\nb 1 2 3\n# c\na 4 5 6\n");
  EXPECT_TRUE(Contains(msg, "my/suite.txt:4:"));
  EXPECT_TRUE(Contains(msg, "duplicate problem name 'a'"));
}

TEST(ParseSuite, OnlyCommentsIsAnEmptySuite) {
  const std::string msg = parse_error("# nothing here\n\n   # still nothing\n");
  EXPECT_TRUE(Contains(msg, "my/suite.txt:"));
  EXPECT_TRUE(Contains(msg, "holds no problems"));
  EXPECT_TRUE(Contains(parse_error(""), "holds no problems"));
}

TEST(LoadSuite, MissingFileNamesThePath) {
  try {
    load_suite("/nonexistent/dir/nosuch.txt");
    FAIL() << "expected a tilewise::Error";
  } catch (const Error& e) {
    EXPECT_TRUE(Contains(e.what(), "/nonexistent/dir/nosuch.txt"));
    EXPECT_TRUE(Contains(e.what(), "cannot open"));
  }
}

// The suites that ship with the tool load, hold the documented number of problems, and every problem is a
// valid bf16 problem in both layouts.
struct Shipped {
  const char* file;
  size_t count;
  const char* first;
};

class ShippedSuite : public testing::TestWithParam<Shipped> {};

TEST_P(ShippedSuite, LoadsWithExpectedCount) {
  const std::string path = std::string(TILEWISE_SOURCE_DIR) + "/suites/" + GetParam().file;
  const Suite s = load_suite(path);
  EXPECT_EQ(s.path, path);
  ASSERT_EQ(s.entries.size(), GetParam().count);
  EXPECT_EQ(s.entries.front().name, GetParam().first);
  for (const SuiteEntry& e : s.entries)
    for (Layout l : {Layout::TN, Layout::NN})
      EXPECT_NO_THROW(validate(make_problem(e.name, e.M, e.N, e.K, DType::bf16, l))) << e.name;
}

INSTANTIATE_TEST_SUITE_P(Suites, ShippedSuite,
                         testing::Values(Shipped{"square.txt", 12, "sq256"}, Shipped{"llm24.txt", 24, "sqS"},
                                         Shipped{"decode.txt", 7, "dec_m1_12288"},
                                         Shipped{"decode-small-m.txt", 9, "dec_m2_4096"}),
                         [](const auto& info) {
                           std::string f = info.param.file;
                           f = f.substr(0, f.find('.'));
                           std::replace(f.begin(), f.end(), '-', '_');  // test names take no '-'
                           return f;
                         });

TEST(LoadSuite, SquareSuiteShapes) {
  const Suite s = load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/square.txt");
  ASSERT_EQ(s.entries.size(), 12u);
  EXPECT_EQ(s.entries.back().name, "sq16384");
  EXPECT_EQ(s.entries.back().M, 16384);
  EXPECT_EQ(s.entries.back().N, 16384);
  EXPECT_EQ(s.entries.back().K, 16384);
}

TEST(LoadSuite, DecodeSuiteShapes) {
  const Suite s = load_suite(std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt");
  ASSERT_FALSE(s.entries.empty());
  EXPECT_EQ(s.entries[0].M, 1);
  EXPECT_EQ(s.entries[0].N, 12288);
  EXPECT_EQ(s.entries[0].K, 4096);
}

// The one expansion bench, compile and tune share: suite lines x dtypes x layouts, in order, filtered by --only.
TEST(ExpandSuites, EveryLineInEveryDtypeAndLayoutInOrder) {
  const std::string square = std::string(TILEWISE_SOURCE_DIR) + "/suites/square.txt";
  const std::string decode = std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt";
  const std::vector<SuiteCase> all =
      expand_suites({square, decode}, {}, {DType::bf16, DType::fp8_e4m3}, {Layout::TN, Layout::NN});
  EXPECT_EQ(all.size(), (load_suite(square).entries.size() + load_suite(decode).entries.size()) * 4);
  EXPECT_EQ(all[0].entry.name, "sq256");
  EXPECT_EQ(all[1].layout, Layout::NN);
  EXPECT_EQ(all[2].dtype, DType::fp8_e4m3);
  const std::vector<SuiteCase> some = expand_suites({square, decode}, {"dec_m1_12288", "sq4096"}, {DType::bf16}, {Layout::TN});
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].entry.name, "sq4096");  // suite order, not --only order
  EXPECT_EQ(some[1].entry.name, "dec_m1_12288");
  EXPECT_EQ(some[0].suite, "square");  // each case names the suite its line is in
  EXPECT_EQ(some[1].suite, "decode");
}

TEST(SuiteName, IsTheFileNameWithoutDirectoriesOrExtension) {
  EXPECT_EQ(suite_name("suites/llm24.txt"), "llm24");
  EXPECT_EQ(suite_name("/abs/dir/decode.txt"), "decode");
  EXPECT_EQ(suite_name("square"), "square");
}

// A suite named *-linear, or a sweep problem named *_lin, is nn.Linear's orientation; everything else the seeds'.
TEST(SuiteOrientation, LinearSuitesAndSweepProblemsAreNnLinear) {
  EXPECT_EQ(orientation_of("llm24-linear", "sqS_lin"), Orientation::linear);
  EXPECT_EQ(orientation_of("quant-tokens-linear", "qt_t1_12288"), Orientation::linear);
  EXPECT_EQ(orientation_of("sweep-fresh", "s20261203_0019_lin"), Orientation::linear);
  EXPECT_EQ(orientation_of("sweep-fresh", "s20261203_0019_col"), Orientation::column_major);
  EXPECT_EQ(orientation_of("llm24", "sqS"), Orientation::column_major);
  EXPECT_EQ(orientation_of("linear-llm24", "lin"), Orientation::column_major);  // the suffix, not the word
  EXPECT_EQ(to_string(Orientation::linear), "nn.Linear");
  EXPECT_EQ(to_string(Orientation::column_major), "column-major");
}

TEST(ExpandSuites, OnlyNameNoSuiteHoldsIsAnError) {
  const std::string square = std::string(TILEWISE_SOURCE_DIR) + "/suites/square.txt";
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { expand_suites({square}, {"sq4096", "sq4097"}, {DType::bf16}, {Layout::TN}); }),
                                "--only names 'sq4097', which no given suite holds"));
}

// Receipts, --only and fit go by a problem's name, so one run cannot hold two problems of one name: decode.txt and
// decode-small-m.txt both hold dec_m4_12288. --only leaving one of them out, or the other's other lines, is fine.
TEST(ExpandSuites, AProblemNameInTwoSuitesIsAnError) {
  const std::string decode = std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt";
  const std::string small = std::string(TILEWISE_SOURCE_DIR) + "/suites/decode-small-m.txt";
  const std::string error = testkit::error_of([&] { expand_suites({decode, small}, {}, {DType::bf16}, {Layout::TN}); });
  EXPECT_TRUE(testkit::Contains(error, "problem 'dec_m4_12288' is in both")) << error;
  EXPECT_TRUE(testkit::Contains(error, "decode-small-m.txt")) << error;
  EXPECT_EQ(expand_suites({decode, small}, {"dec_m1_12288", "dec_m2_4096"}, {DType::bf16}, {Layout::TN}).size(), 2u);
}

}  // namespace
}  // namespace tilewise
