// Protocol files: a good one parses into the instrument and predictions; every bad one is refused with an error
// that names the file and line. And a protocol must be committed, unchanged, before it can freeze a run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "protocol/protocol.hpp"

namespace tilewise::protocol {
namespace {

const std::string decode_suite = std::string(TILEWISE_SOURCE_DIR) + "/suites/decode.txt";

std::string good() {
  return "question = \"How close does cuBLASLt come to the read bandwidth at M=1?\"\n"  // line 1
         "\n"
         "[instrument]\n"
         "suites = [\"" + decode_suite + "\"]\n"
         "only = [\"dec_m1_12288\"]\n"
         "dtypes = [\"bf16\", \"fp8\"]\n"
         "layouts = [\"TN\"]\n"
         "arms = [\"cublaslt\", \"cublaslt-default\"]\n"
         "cold = true\n"
         "repeats = 7\n"
         "\n"
         "[[prediction]]\n"                                           // line 12
         "id = \"bw\"\n"
         "problem = \"dec_m1_12288\"\n"
         "dtype = \"bf16\"\n"
         "layout = \"TN\"\n"
         "metric = \"bandwidth_fraction\"\n"
         "arm = \"cublaslt\"\n"
         "range = [0.8, 0.92]\n"                                      // line 19
         "falsifier = \"under 80% or over 92% of the measured read bandwidth\"\n"
         "\n"
         "[[prediction]]\n"                                           // line 22
         "id = \"best-vs-default\"\n"
         "problem = \"dec_m1_12288\"\n"
         "dtype = \"fp8\"\n"
         "layout = \"TN\"\n"
         "metric = \"speedup\"\n"
         "arm = \"cublaslt\"\n"
         "baseline = \"cublaslt-default\"\n"
         "range = [1.0, 1.1]\n"
         "falsifier = \"the best candidate is slower than the default, or more than 10% faster\"\n";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    parse_protocol(text, "protocols/p.toml");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(Protocol, ParsesInstrumentAndPredictions) {
  const ProtocolFile pf = parse_protocol(good(), "protocols/p.toml");
  EXPECT_EQ(pf.question, "How close does cuBLASLt come to the read bandwidth at M=1?");
  EXPECT_EQ(pf.instrument.suites, std::vector<std::string>{decode_suite});
  EXPECT_EQ(pf.instrument.only, std::vector<std::string>{"dec_m1_12288"});
  EXPECT_EQ(pf.instrument.dtypes, (std::vector<DType>{DType::bf16, DType::fp8_e4m3}));
  EXPECT_TRUE(pf.instrument.cold);
  EXPECT_EQ(pf.instrument.repeats, 7);
  ASSERT_EQ(pf.predictions.size(), 2u);
  EXPECT_EQ(pf.predictions[0].metric, "bandwidth_fraction");
  EXPECT_DOUBLE_EQ(pf.predictions[0].low, 0.8);
  EXPECT_DOUBLE_EQ(pf.predictions[0].high, 0.92);
  EXPECT_EQ(pf.predictions[1].baseline, "cublaslt-default");
  EXPECT_EQ(pf.predictions[1].dtype, "fp8");
}

TEST(Protocol, SyntaxErrorNamesTheLine) {
  EXPECT_NE(error_of(replaced(good(), "cold = true", "cold = = true")).find("protocols/p.toml:9:"), std::string::npos);
}

TEST(Protocol, MissingFields) {
  EXPECT_NE(error_of(replaced(good(), "question = ", "title = ")).find("unknown key 'title'"), std::string::npos);
  const std::string no_falsifier = replaced(good(), "falsifier = \"under 80% or over 92% of the measured read bandwidth\"\n", "");
  const std::string e = error_of(no_falsifier);
  EXPECT_NE(e.find("needs 'falsifier'"), std::string::npos) << e;
  EXPECT_NE(error_of(replaced(good(), "[instrument]", "[setup]")).find("unknown key 'setup'"), std::string::npos);
  EXPECT_NE(error_of(good().substr(0, good().find("[[prediction]]"))).find("at least one [[prediction]]"),
            std::string::npos);
}

TEST(Protocol, UnknownArmOrMetricNamesTheLine) {
  std::string e = error_of(replaced(good(), "arm = \"cublaslt\"\nrange = [0.8", "arm = \"sm90\"\nrange = [0.8"));
  EXPECT_NE(e.find("protocols/p.toml:18: arm 'sm90' is not among the instrument's arms"), std::string::npos) << e;
  e = error_of(replaced(good(), "metric = \"bandwidth_fraction\"", "metric = \"latency\""));
  EXPECT_NE(e.find("protocols/p.toml:17: unknown metric 'latency'"), std::string::npos) << e;
  e = error_of(replaced(good(), "arms = [\"cublaslt\", \"cublaslt-default\"]", "arms = [\"cublaslt\", \"magic\"]"));
  EXPECT_NE(e.find("unknown arm 'magic'"), std::string::npos) << e;
}

TEST(Protocol, InvertedRangeNamesTheLine) {
  const std::string e = error_of(replaced(good(), "range = [0.8, 0.92]", "range = [0.92, 0.8]"));
  EXPECT_NE(e.find("protocols/p.toml:19: range [0.92, 0.8] is inverted"), std::string::npos) << e;
  EXPECT_NE(error_of(replaced(good(), "range = [0.8, 0.92]", "range = [0.8]")).find("'range' must be [low, high]"),
            std::string::npos);
}

// A range that is not finite always holds and was written to the receipt as null, which `check` could not read; a
// bound TOML holds as an integer a double cannot hold exactly aborted the parse.
TEST(Protocol, RangeBoundsAreFiniteDoubles) {
  std::string e = error_of(replaced(good(), "range = [0.8, 0.92]", "range = [-inf, inf]"));
  EXPECT_NE(e.find("protocols/p.toml:19: range bound -inf is not finite"), std::string::npos) << e;
  e = error_of(replaced(good(), "range = [0.8, 0.92]", "range = [0.8, nan]"));
  EXPECT_NE(e.find("range bound nan is not finite"), std::string::npos) << e;
  e = error_of(replaced(good(), "range = [0.8, 0.92]", "range = [0, 9007199254740993]"));
  EXPECT_NE(e.find("range bound 9007199254740993 is not exactly a double"), std::string::npos) << e;
  const ProtocolFile pf = parse_protocol(replaced(good(), "range = [0.8, 0.92]", "range = [0, 1]"), "p.toml");
  EXPECT_EQ(pf.predictions[0].low, 0.0);
  EXPECT_EQ(pf.predictions[0].high, 1.0);
}

// The fuzzer's: toml++ 3.3 asserted on a table header that starts with a comment character (and under NDEBUG with
// clang would assume it away); now an error naming the file, whichever build (tests/fuzz/regressions/protocol/).
TEST(Protocol, ATableHeaderTomlppAssertsOnIsAnError) {
  const std::string e = error_of(replaced(good(), "[[prediction]]\nid = \"bw\"", "[[#prediction]]\nid = \"bw\""));
  EXPECT_NE(e.find("protocols/p.toml"), std::string::npos) << e;
}

// The fuzzer's: toml++ 3.3 reached __builtin_unreachable() on "squestiE \u0150" (U+0150 where it looked for a key).
TEST(Protocol, APastAsciiCharacterIsAnErrorNamingTheLine) {
  std::string e = error_of("squestiE \xc5\x90");
  EXPECT_NE(e.find("protocols/p.toml:1: a protocol file is ASCII; this line has a byte 0xc5"), std::string::npos) << e;
  e = error_of(replaced(good(), "falsifier = \"under 80%", "falsifier = \"\xc3\xa9 under 80%"));
  EXPECT_NE(e.find("protocols/p.toml:20: a protocol file is ASCII"), std::string::npos) << e;
}

TEST(Protocol, RepeatsOutOfRangeAreRefusedNotWrapped) {
  const std::string e = error_of(replaced(good(), "repeats = 7", "repeats = 4294967297"));
  EXPECT_NE(e.find("protocols/p.toml:10: 'repeats' = 4294967297 is out of range"), std::string::npos) << e;
}

TEST(Protocol, BaselineRules) {
  EXPECT_NE(error_of(replaced(good(), "baseline = \"cublaslt-default\"\n", "")).find("needs 'baseline'"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(good(), "baseline = \"cublaslt-default\"", "baseline = \"cublaslt\""))
                .find("must be another of the instrument's arms"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(good(), "arm = \"cublaslt\"\nrange = [0.8",
                              "arm = \"cublaslt\"\nbaseline = \"cublaslt-default\"\nrange = [0.8"))
                .find("'baseline' belongs only to a speedup prediction"),
            std::string::npos);
}

TEST(Protocol, PredictionsMustBeAboutTheInstrument) {
  EXPECT_NE(error_of(replaced(good(), "problem = \"dec_m1_12288\"\ndtype = \"bf16\"", "problem = \"dec_m1_4096\"\ndtype = \"bf16\""))
                .find("problem 'dec_m1_4096' is not in the instrument"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(good(), "dtype = \"bf16\"\nlayout", "dtype = \"fp16\"\nlayout"))
                .find("dtype 'fp16' is not among the instrument's"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(good(), "id = \"best-vs-default\"", "id = \"bw\"")).find("duplicate prediction id 'bw'"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(good(), "repeats = 7", "repeats = 0")).find("'repeats' must be a positive integer"),
            std::string::npos);
}

TEST(Protocol, MissingFileNamesIt) {
  try {
    load_protocol("/nonexistent/protocol.toml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/protocol.toml"), std::string::npos);
  }
}

// A scratch git repository as the working directory for the freeze checks.
class Frozen : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = std::filesystem::current_path();
    dir_ = std::filesystem::temp_directory_path() / ("tilewise-freeze-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::current_path(dir_);
    ASSERT_EQ(std::system("git init -q . && git -c user.name=t -c user.email=t commit -q --allow-empty -m root"), 0);
    write("p.toml", "question = \"q\"\n");
  }
  void TearDown() override {
    std::filesystem::current_path(old_);
    std::filesystem::remove_all(dir_);
  }
  static void write(const char* name, const char* text) { std::ofstream(name) << text; }
  static std::string load_text(const char* name) {
    std::ifstream in(name);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static ProtocolFile reading(const char* path, std::vector<std::string> suites = {}) {
    ProtocolFile pf;
    pf.path = path;
    pf.instrument.suites = std::move(suites);
    return pf;
  }
  static std::string error_of_freeze(const ProtocolFile& pf) {
    try {
      frozen_commit(pf);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  std::filesystem::path old_, dir_;
};

TEST_F(Frozen, RefusesAnUncommittedFile) {
  EXPECT_NE(error_of_freeze(reading("p.toml")).find("p.toml: the protocol file is not committed"), std::string::npos);
}

TEST_F(Frozen, RecordsTheCommitAndRefusesLaterChanges) {
  ASSERT_EQ(std::system("git add p.toml && git -c user.name=t -c user.email=t commit -q -m freeze"), 0);
  const std::string commit = frozen_commit(reading("p.toml"));
  EXPECT_EQ(commit.size(), 40u);
  write("p.toml", "question = \"changed after the freeze\"\n");
  EXPECT_NE(error_of_freeze(reading("p.toml")).find("p.toml: the protocol file has uncommitted changes"),
            std::string::npos);
}

// The suites decide what is measured as much as the protocol does: a suite edited after the freeze once went unseen.
TEST_F(Frozen, CoversTheSuitesTheProtocolReads) {
  write("s.txt", "a 64 64 64\n");
  ASSERT_EQ(std::system("git add p.toml s.txt && git -c user.name=t -c user.email=t commit -q -m freeze"), 0);
  const std::string frozen = frozen_commit(reading("p.toml", {"s.txt"}));
  write("s.txt", "a 64 64 128\n");
  EXPECT_NE(error_of_freeze(reading("p.toml", {"s.txt"}))
                .find("s.txt: a suite the protocol reads has uncommitted changes"),
            std::string::npos);
  ASSERT_EQ(std::system("git -c user.name=t -c user.email=t commit -q -am retune"), 0);
  const std::string later = frozen_commit(reading("p.toml", {"s.txt"}));
  EXPECT_NE(later, frozen) << "the commit recorded is the one that last changed any of the files";
  write("t.txt", "b 64 64 64\n");
  EXPECT_NE(error_of_freeze(reading("p.toml", {"s.txt", "t.txt"})).find("t.txt: a suite the protocol reads is not committed"),
            std::string::npos);
}

// The checker holds a receipt to the problems its protocol planned, read here: only while the protocol and its
// suites are as the receipt's recorded commit froze them.
TEST_F(Frozen, PlannedProblemsAreTheFrozenProtocolsAndNoneOnceItChanged) {
  write("s.txt", "a 64 64 64\nb 128 64 64\nc 256 64 64\n");
  write("p.toml",
        "question = \"q\"\n[instrument]\nsuites = [\"s.txt\"]\nonly = [\"a\", \"c\"]\ndtypes = [\"bf16\", \"fp16\"]\n"
        "layouts = [\"TN\"]\narms = [\"cublaslt\", \"cublaslt-default\"]\nrepeats = 3\n"
        "[[prediction]]\nid = \"x\"\nproblem = \"a\"\ndtype = \"bf16\"\nlayout = \"TN\"\nmetric = \"us_median\"\n"
        "arm = \"cublaslt\"\nrange = [1, 2]\nfalsifier = \"f\"\n");
  ASSERT_EQ(std::system("git add p.toml s.txt && git -c user.name=t -c user.email=t commit -q -m freeze"), 0);
  const std::string commit = frozen_commit(load_protocol("p.toml"));
  const std::optional<std::vector<Problem>> plan = planned_problems({"p.toml", commit, "q", {}});
  ASSERT_TRUE(plan.has_value());
  std::vector<std::string> named;
  for (const Problem& p : *plan) named.push_back(fmt::format("{} {}", p.name, to_string(p.dtype)));
  EXPECT_EQ(named, (std::vector<std::string>{"a bf16", "a fp16", "c bf16", "c fp16"}));
  EXPECT_EQ(plan->front(), make_problem("a", 64, 64, 64, DType::bf16, Layout::TN));

  EXPECT_FALSE(planned_problems({"p.toml", "0123456789abcdef", "q", {}})) << "another commit's protocol";
  EXPECT_FALSE(planned_problems({"p.toml", "--output=x", "q", {}})) << "not a commit id";
  // A later commit that changes a comment and one that puts it back leave the files as the run read them.
  const std::string text = load_text("p.toml");
  write("p.toml", (text + "# a comment\n").c_str());
  ASSERT_EQ(std::system("git -c user.name=t -c user.email=t commit -q -am comment"), 0);
  EXPECT_FALSE(planned_problems({"p.toml", commit, "q", {}})) << "the protocol changed since";
  write("p.toml", text.c_str());
  ASSERT_EQ(std::system("git -c user.name=t -c user.email=t commit -q -am revert"), 0);
  ASSERT_NE(frozen_commit(load_protocol("p.toml")), commit);
  EXPECT_TRUE(planned_problems({"p.toml", commit, "q", {}})) << "as the run read it, though touched since";
  write("s.txt", "a 64 64 64\nc 512 64 64\n");
  EXPECT_FALSE(planned_problems({"p.toml", commit, "q", {}})) << "a suite changed since";
  EXPECT_FALSE(planned_problems({"missing.toml", commit, "q", {}}));
}

}  // namespace
}  // namespace tilewise::protocol
