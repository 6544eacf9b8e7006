// The command line against bad input (docs/reliability.md has the table): every case ends with a message naming the
// problem and a non-zero status, never an abort, a hang, or an output written over an input. No GPU is needed; where
// the machine has none, the GPU commands must fail on their options or inputs before they look for one.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include "cli/run_tool.hpp"
#include "core/gzip.hpp"
#include "families/registry.hpp"
#include "receipt/receipt.hpp"
#include "receipt/sample_receipt.hpp"
#include "select/database_file.hpp"
#include "select/floor.hpp"
#include "select/sample_database.hpp"
#include "temp_dir.hpp"
#include "tune/campaign.hpp"

namespace tilewise::testkit {
namespace {

namespace fs = std::filesystem;

const std::string kSource = TILEWISE_SOURCE_DIR;

class Cli : public ::testing::Test {
 protected:
  Ran run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) const {
    std::map<std::string, std::string> e = env;
    e.emplace("TILEWISE_CACHE_DIR", (dir_ / "jit-cache").string());
    e.emplace("TILEWISE_DB", (dir_ / "machine-database.json").string());  // never the user's own tuned database
    return run_tool(args, dir_, e);
  }
  std::string put(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return name;
  }
  std::string receipt() const {
    receipt::write_file(receipt::sample_receipt(), (dir_ / "receipt.json").string());
    return "receipt.json";
  }
  // The sample receipt with an sm90 arm beside cuBLASLt's (cublaslt-default's samples under the rule's
  // configuration): what `floor fit` takes. `pad` elements on every leading dimension make other problems.
  std::string floor_receipt(const std::string& name, int64_t pad = 0) const {
    receipt::Receipt rc = receipt::sample_receipt();
    for (receipt::Result& res : rc.results) {
      const Problem& p = res.problem;
      res.problem = make_problem(p.name, p.M, p.N, p.K, p.dtype, p.layout, pad);
      res.working_set_bytes = receipt::rotation_set_bytes(res.problem);
      receipt::ArmResult a = res.arms.back();
      a.arm = "sm90";
      a.config = {{"config", *families::family("sm90").rule(res.problem, 132)}, {"grid", 132}};
      res.arms.push_back(a);
    }
    receipt::refresh_derived(rc);
    receipt::write_file(rc, (dir_ / name).string());
    return name;
  }
  std::string copy_of(const std::string& name, const std::string& copy) const {
    fs::copy_file(dir_ / name, dir_ / copy, fs::copy_options::overwrite_existing);
    return copy;
  }
  std::string copy_of_shipped_floor() const {
    fs::copy_file(kSource + "/data/floor-h200.json", dir_ / "floor.json", fs::copy_options::overwrite_existing);
    return "floor.json";
  }
  std::string database() const {
    select::write_database(sample_database(), (dir_ / "db.json").string());
    return "db.json";
  }
  // One sm90 case tuned in one round: the warm start timed beside a winner that won strictly.
  static tune::CaseResult tuned_case(const std::string& id, double start_us, int64_t m = 4096) {
    tune::CaseResult r;
    r.c = {id, "sm90", make_problem("sq", m, 4096, 4096, DType::bf16, Layout::TN)};
    r.mode = "descent";
    r.warm_start = kSm90A;
    r.space_digest = "d";
    tune::Round round;
    round.group = "tile";
    round.legal = round.timed = 2;
    round.incumbent = kSm90A;
    round.incumbent_us = {start_us, start_us * 1.01, start_us * 1.02};
    round.winner = kSm90B;
    round.winner_us = {start_us * 0.8, start_us * 0.81, start_us * 0.82};
    round.adopted = true;
    r.start_us = receipt::median(round.incumbent_us);
    r.best_us = receipt::median(round.winner_us);
    round.latency_us = r.start_us * r.best_us / r.start_us;  // as the descent chains it
    r.rounds = {round};
    r.best = kSm90B;
    r.status = tune::Status::finished;
    return r;
  }
  std::string campaign(const std::string& name, const std::vector<tune::CaseResult>& cases) const {
    const tune::Campaign c{"descent", kH200, cases};
    std::ofstream(dir_ / name) << tune::to_json(c).dump(1);
    return name;
  }
  bool exists(const std::string& name) const { return fs::exists(dir_ / name); }
  TempDir temp_;
  const fs::path& dir_ = temp_.path();
};

// ---- main(): one message, one status, whatever goes wrong -----------------------------------------------------

// 1e400 is past double range: nlohmann throws out_of_range, which once escaped main() and aborted every command
// that reads JSON (and lost the lines `check` had printed for the files before it).
TEST_F(Cli, ANumberPastDoubleRangeIsAnErrorInEveryReader) {
  const std::string huge = put("huge.json", R"({"schema": "tilewise.database/1", "x": 1e400})");
  const Ran check = run({"check", receipt(), huge});
  EXPECT_TRUE(Ends(check, 1, "valid    receipt.json"));
  EXPECT_TRUE(Ends(check, 1, "INVALID  huge.json"));
  EXPECT_TRUE(Ends(check, 1, "huge.json: not valid JSON"));
  EXPECT_TRUE(Ends(run({"choose", "--suite", kSource + "/suites/square.txt", "--database", huge}), 2,
                   "tilewise: huge.json: not valid JSON"));
  EXPECT_TRUE(Ends(run({"db", "merge", huge, "-o", "out.json"}), 2, "huge.json: not valid JSON"));
  EXPECT_TRUE(Ends(run({"campaign", huge}), 2, "huge.json: not valid JSON"));
  EXPECT_TRUE(Ends(run({"headline", huge}), 2, "huge.json: not valid JSON"));
}

TEST_F(Cli, AFolderGivenAsAFileIsNamed) {
  fs::create_directory(dir_ / "folder");
  EXPECT_TRUE(Ends(run({"check", "folder"}), 1, "folder: is a folder, not a file"));
  EXPECT_TRUE(Ends(run({"quantize", "folder", "-o", "w.tww", "--rows", "4", "--cols", "32"}), 2,
                   "folder: is a folder, not a file"));
  EXPECT_TRUE(Ends(run({"suite", "folder"}), 2, "folder: is a folder, not a file"));
}

TEST_F(Cli, AMissingKernelsFolderIsNamed) {
  EXPECT_TRUE(Ends(run({"compile", "--suite", kSource + "/suites/square.txt", "--only", "sq256", "--first-rule"},
                       {{"TILEWISE_KERNELS_DIR", "/nonexistent/kernels"}}),
                   2, "TILEWISE_KERNELS_DIR=/nonexistent/kernels is not a folder of kernel sources"));
}

// A new user's probe found these: a report written over an input receipt, receipts counted twice, a fit judged on
// its own half, lists and numbers that silently dropped or repeated work.
TEST_F(Cli, AReceiptCountsOnceAndNoReportReplacesAnInput) {
  const std::string r = receipt(), other = copy_of(r, "other.json");
  const std::string before = slurp(dir_ / r);
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", r, "--judge", other, "-o", "floor.json", "--report", r, "--overwrite"}),
                   2, "an output never replaces what it is made from"));
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", r, "--judge", other, "-o", "f.json", "--report", "f.json"}), 2,
                   "-o and --report name one file, f.json: the report would replace the rule"));
  EXPECT_FALSE(exists("f.json"));
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", r, "--judge", r, "-o", "g.json"}), 2,
                   "receipt.json and receipt.json are one file, given twice: each input counts once"));
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", r, "--fit", "./" + r, "--judge", other, "-o", "g.json"}), 2,
                   "are one file, given twice: each input counts once"));
  // Receipts of cuBLASLt's arms alone time no family: a floor fitted on them would be empty.
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", r, "--judge", other, "-o", "g.json"}), 2,
                   "the fitted half's receipts time no family's rule (an arm gemv or sm90) beside cublaslt-default"));
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", floor_receipt("f2.json"), "--judge", other, "-o", "g.json"}), 2,
                   "the judged half's receipts time no family's rule"));
  EXPECT_FALSE(exists("g.json"));
  // A copy of the fitted half (or a re-run of its problems), renamed or not, is no judged half: "judged on N others"
  // was the fit scoring itself. Problems are compared by what they are, sizes, dtype, layout and strides.
  const std::string fitted = floor_receipt("fitted.json"), copy = copy_of(fitted, "fitted-copy.json");
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", fitted, "--judge", copy, "-o", "g.json"}), 2,
                   "the judged half shares 2 of its 2 problems with the fitted half (sq2048 bf16 TN 2048x2048x2048"));
  nlohmann::json renamed = nlohmann::json::parse(slurp(dir_ / fitted));
  for (auto& res : renamed["results"]) res["problem"]["name"] = res["problem"]["name"].get<std::string>() + "_again";
  put("renamed.json", renamed.dump());
  EXPECT_TRUE(Ends(run({"floor", "fit", "--fit", fitted, "--judge", "renamed.json", "-o", "g.json"}), 2,
                   "(sq2048_again bf16 TN 2048x2048x2048 lda=2048 ldb=2048 ldc=2048, fitted as sq2048)"));
  EXPECT_FALSE(exists("g.json"));
  EXPECT_EQ(slurp(dir_ / r), before) << "the input receipt is untouched";
  // A receipt anywhere under the page's tables/ folder, which the page rewrites whole.
  fs::create_directories(dir_ / "page/tables/old");
  fs::copy_file(dir_ / r, dir_ / "page/tables/old/kept.json");
  EXPECT_TRUE(Ends(run({"report", "page/tables/old/kept.json", "-o", "page", "--overwrite"}), 2,
                   "the page would replace this receipt; write it into another folder"));
  EXPECT_EQ(slurp(dir_ / "page/tables/old/kept.json"), before);
  EXPECT_TRUE(Ends(run({"headline", r, r, "--arm", "cublaslt"}), 2, "given twice: each input counts once"));
  EXPECT_TRUE(Ends(run({"fit", r, other, r}), 2, "given twice: each input counts once"));
  EXPECT_TRUE(Ends(run({"report", r, "./" + r, "-o", "page2"}), 2, "given twice: each input counts once"));
  const std::string db = database();
  EXPECT_TRUE(Ends(run({"db", "merge", db, db, "-o", "m2.json"}), 2, "given twice: each input counts once"));
  EXPECT_FALSE(exists("m2.json"));
  // A page's folder is made, the folders above it are not: a mistyped path is named.
  EXPECT_TRUE(Ends(run({"report", r, "-o", "no/such/page"}), 2, "no/such/page: its folder"));
  EXPECT_FALSE(exists("no"));
  // An arm no receipt has: an empty table would read as a run with nothing to say.
  EXPECT_TRUE(Ends(run({"headline", r, "--arm", "nosuch"}), 2, "their arms: cublaslt, cublaslt-default"));
  EXPECT_TRUE(Ends(run({"headline", r, "--arm", "cublaslt", "--by-class"}), 2, "among the sweep's problems"));
  EXPECT_TRUE(Ends(run({"headline", r, "--fastest-of", "cublaslt"}), 2, "name at least two"));
  EXPECT_TRUE(Ends(run({"headline", r, "--fastest-of", "cublaslt,cublaslt"}), 2, "names cublaslt twice"));
  EXPECT_TRUE(Ends(run({"headline", r, "--fastest-of", ""}), 2, "name at least two"));
  const Ran with_arm = run({"headline", r, "--fastest-of", "cublaslt,cublaslt-default", "--arm", "cublaslt"});
  EXPECT_NE(with_arm.status, 0);
  EXPECT_NE(with_arm.all().find("excludes"), std::string::npos) << with_arm.all();
  EXPECT_TRUE(Ends(run({"headline", "--fastest-of", "cublaslt,cublaslt-default", r}), 0,
                   "| fastest of cublaslt, cublaslt-default vs cuBLASLt default |"));
  EXPECT_TRUE(Ends(run({"headline", r, "--fastest-of", "nosuch,other"}), 2, "no receipt has the arm nosuch"));
  // A best arm asked for by name that no receipt has is a misspelling, not a receipt without cuBLASLt's best.
  EXPECT_TRUE(Ends(run({"headline", r, "--arm", "cublaslt", "--best", "cublast"}), 2,
                   "no receipt has the arm --best cublast; their arms: cublaslt, cublaslt-default"));
  // A decision or judgement stands on valid receipts only.
  nlohmann::json j = nlohmann::json::parse(slurp(dir_ / r));
  j["results"][0]["arms"][0]["us_median"] = 0.001;
  put("forged.json", j.dump());
  EXPECT_TRUE(Ends(run({"db", "merge", database(), "-o", "m.json", "--confirm", "forged.json"}), 2,
                   "forged.json: not a valid receipt"));
  EXPECT_FALSE(exists("m.json"));
}

// headline --by-orientation r1.json r1-copy.json counted every case twice (48 of 24), as did two runs of one suite.
TEST_F(Cli, HeadlineCountsAProblemOnceHoweverManyReceiptsMeasuredIt) {
  const std::string r = receipt(), copy = copy_of(r, "copy.json");
  const Ran once = run({"headline", "--by-orientation", "--arm", "cublaslt", r});
  const Ran both = run({"headline", "--by-orientation", "--arm", "cublaslt", r, copy});
  ASSERT_EQ(once.status, 0) << once.all();
  ASSERT_TRUE(Ends(both, 0, "headline: 2 results left out: a more recent receipt measured the same problem"));
  std::string expected = once.out;  // the one receipt's table, its cases counted once, from the later of the two
  expected.replace(expected.find(r), r.size(), copy);
  EXPECT_EQ(both.out, expected);
}

TEST_F(Cli, FitTakesAProblemFromTheLastReceiptThatHasIt) {
  // A later sweep re-times problems with the rungs added since (the swapped tiles, the fitted widths): each counts
  // once. A sweep from before a rung the rule now takes cannot judge the rule, and the fit names the problem.
  fs::copy_file(kSource + "/results/sm90-sweep-warm.json", dir_ / "warm.json");
  fs::copy_file(kSource + "/results/sm90-sweep-fitted-warm.json", dir_ / "later.json");
  const Ran ran = run({"fit", "warm.json", "later.json"});
  ASSERT_EQ(ran.status, 0) << ran.all();
  EXPECT_NE(ran.out.find("over 36 problems from 2 receipt(s)"), std::string::npos) << ran.out;
  EXPECT_EQ(ran.out.find("swapped tiles unrated"), std::string::npos) << ran.out;
  // No sweep has timed one consumer's fitted widths yet: 768^3 takes one (72 x 64), and the fit says so.
  EXPECT_NE(ran.out.find("one consumer's fitted widths unrated: 1 of these problems"), std::string::npos) << ran.out;
  EXPECT_TRUE(Ends(run({"fit", "later.json", "warm.json"}), 2, "was not measured"));
}

TEST_F(Cli, CheckReadsTheShippedFloorAsTheLibraryDoes) {
  // It once called data/floor-h200.json an invalid receipt, and CI did not check the floor at all.
  fs::copy_file(kSource + "/data/floor-h200.json", dir_ / "floor.json");
  const Ran ran = run({"check", "floor.json"});
  EXPECT_EQ(ran.status, 0) << ran.all();
  EXPECT_NE(ran.out.find("measured on NVIDIA H200 (132 SMs), 6 neighbours within 6; "), std::string::npos) << ran.out;
  // The outcomes timed with a configuration the rules no longer choose are counted (they count as not faster).
  EXPECT_NE(ran.out.find(fmt::format("; {} outcomes timed a configuration", select::count_not_current(select::shipped_floor()))),
            std::string::npos) << ran.out;
  nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "floor.json"));
  j["sm_count"] = "many";
  put("bad-floor.json", j.dump());
  const Ran bad = run({"check", "bad-floor.json"});
  EXPECT_EQ(bad.status, 1) << bad.all();
  EXPECT_NE(bad.out.find("sm_count"), std::string::npos) << bad.out;
}

// The large committed receipts are stored compressed (results/*.json.gz), and CI checks every one.
TEST_F(Cli, CheckReadsCompressedFiles) {
  put("receipt.json.gz", gzip(slurp(dir_ / receipt())));
  put("floor.json.gz", gzip(slurp(kSource + "/data/floor-h200.json")));
  put("cut.json.gz", gzip(slurp(dir_ / "receipt.json")).substr(0, 100));
  const Ran ran = run({"check", "receipt.json.gz", "floor.json.gz", "cut.json.gz"});
  EXPECT_TRUE(Ends(ran, 1, "valid    receipt.json.gz ("));
  EXPECT_TRUE(Ends(ran, 1, "valid    floor.json.gz (floor: "));
  EXPECT_TRUE(Ends(ran, 1, "INVALID  cut.json.gz"));
  EXPECT_TRUE(Ends(ran, 1, "cut.json.gz: truncated gzip stream"));
}

// A writer given a name ending in .gz writes what that name promises, so the file it wrote reads back.
TEST_F(Cli, AnOutputNamedGzIsWrittenCompressed) {
  const Ran merged = run({"db", "merge", database(), "-o", "merged.json.gz"});
  ASSERT_EQ(merged.status, 0) << merged.all();
  EXPECT_EQ(slurp(dir_ / "merged.json.gz").substr(0, 2), "\x1f\x8b");
  EXPECT_TRUE(Ends(run({"check", "merged.json.gz"}), 0, "valid    merged.json.gz (database: "));
}

// A preregistered receipt with a result deleted (a case in neither results nor skipped) checked valid, and so did a
// negative host-loop sample. The run's protocol and suite, committed as the receipt's commit froze them, give the plan.
TEST_F(Cli, CheckNamesAPlannedProblemTheReceiptLacksAndASampleThatIsNoTime) {
  for (const char* file : {"protocols/decode-gemv-warps.toml", "suites/decode.txt"}) {
    fs::create_directories((dir_ / file).parent_path());
    fs::copy_file(kSource + "/" + file, dir_ / file);
  }
  const std::string git = "cd '" + dir_.string() + "' && git -c user.name=t -c user.email=t ";
  ASSERT_EQ(std::system((git + "init -q . && " + git + "add protocols suites && " + git + "commit -q -m freeze && " +
                         git + "rev-parse HEAD > head.txt").c_str()),
            0);
  std::string commit = slurp(dir_ / "head.txt");
  commit.erase(commit.find_last_not_of('\n') + 1);
  nlohmann::json j = nlohmann::json::parse(slurp(kSource + "/results/protocol-decode-gemv-warps.json"));
  j["preregistration"]["commit"] = commit;  // the receipt as if run from this repository
  put("whole.json", j.dump());
  EXPECT_TRUE(Ends(run({"check", "whole.json"}), 0, "valid    whole.json (4 results)"));

  nlohmann::json cut = j;
  ASSERT_EQ(cut["results"][2]["problem"]["name"], "dec_m1_down");  // no prediction names it
  cut["results"].erase(2);
  put("cut.json", cut.dump());
  EXPECT_TRUE(Ends(run({"check", "cut.json"}), 1,
                   fmt::format("protocols/decode-gemv-warps.toml (commit {}) plans dec_m1_down bf16 TN, which is in "
                               "neither the results nor the skipped",
                               commit.substr(0, 10))));
  nlohmann::json negative = j;
  negative["results"][0]["arms"][0]["host_us"][0] = -1;
  put("negative.json", negative.dump());
  EXPECT_TRUE(Ends(run({"check", "negative.json"}), 1, "host_us sample -1 is not a time"));
}

// A first word that is no command is named, with the commands there are (CLI11 said only that one is required).
TEST_F(Cli, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const Ran r = run({"nosuch", "--suite", "s.txt"});
  EXPECT_TRUE(Ends(r, 2, "no command 'nosuch'; the commands: info, check, suite, choose"));
  EXPECT_NE(r.all().find("floor"), std::string::npos) << r.all();
  EXPECT_TRUE(Ends(run({"info"}), 0, "tilewise "));  // a command's own name still runs it
}

TEST_F(Cli, ListsAndNumbersThatWouldDropOrRepeatWorkAreRefused) {
  const std::string suite = kSource + "/suites/square.txt";
  EXPECT_TRUE(Ends(run({"suite", suite, "--dtypes", ""}), 2, "--dtypes names no dtype"));
  EXPECT_TRUE(Ends(run({"suite", suite, "--dtypes", "bf16,bf16"}), 2, "--dtypes 'bf16,bf16' names bf16 twice"));
  EXPECT_TRUE(Ends(run({"choose", "--suite", suite, "--only", ","}), 2, "--only ',' has an empty item"));
  EXPECT_TRUE(Ends(run({"suite", suite, "--layouts", "TN,,NN"}), 2, "--layouts 'TN,,NN' has an empty item"));
  EXPECT_NE(run({"compile", "--suite", suite, "--every", "0"}).status, 0);
  EXPECT_TRUE(Ends(run({"compile", "--suite", suite, "--dtypes", "fp8", "--layouts", "NN"}), 2, "nothing to build"));
  // A size past what the kernels index is named, as `suite` and `choose` name it.
  put("huge.txt", "huge 1099511627776 16 16\n");
  EXPECT_TRUE(Ends(run({"compile", "--suite", "huge.txt", "--first-rule"}), 2, "huge: M = 1099511627776 exceeds 2147483647"));
  for (const char* seed : {"-1", "18446744073709551616", "1e3"}) {  // wrapped, clamped and rounded, they were
    const Ran ran = run({"sweep", "--seed", seed, "-o", "s.txt"});
    EXPECT_NE(ran.status, 0);
    EXPECT_NE(ran.all().find(fmt::format("--seed: {} is not a whole number in 0 .. 18446744073709551615", seed)),
              std::string::npos) << ran.all();
  }
  // The same rule for bench's and tune's operand seeds, before any GPU is looked for.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bench", "--suite", suite, "-o", "r.json", "--seed", "-1"},
        std::vector<std::string>{"tune", "--suite", suite, "--campaign", "t.json", "--seed", "-1"}}) {
    const Ran ran = run(args);
    EXPECT_NE(ran.status, 0);
    EXPECT_NE(ran.all().find("--seed: -1 is not a whole number"), std::string::npos) << ran.all();
  }
  EXPECT_TRUE(Ends(run({"sweep", "--seed", "1", "--count", "1", "--part", "judge", "-o", "s.txt"}), 2,
                   "holds none of part judge: give --count 2 or more"));
  EXPECT_FALSE(exists("s.txt"));
  EXPECT_EQ(run({"sweep", "--seed", "18446744073709551615", "--count", "2", "-o", "s.txt"}).status, 0);
  EXPECT_NE(run({"db", "merge", database(), "-o", "m.json", "--margin", "0.1"}).status, 0);
}

TEST_F(Cli, CompileWritesCubinsAndReplacesThemOnlyWithOverwrite) {
  const std::vector<std::string> args = {"compile", "--suite", kSource + "/suites/decode.txt", "--only", "dec_m1_4096",
                                         "--first-rule", "--cubin-dir", "cubins"};
  ASSERT_EQ(run(args).status, 0);
  std::vector<fs::path> written;
  for (const auto& e : fs::directory_iterator(dir_ / "cubins")) written.push_back(e.path());
  ASSERT_FALSE(written.empty());
  const auto size = fs::file_size(written[0]);
  EXPECT_TRUE(Ends(run(args), 2, "exists; it is replaced only with --overwrite"));
  std::vector<std::string> again = args;
  again.push_back("--overwrite");
  EXPECT_EQ(run(again).status, 0);
  EXPECT_EQ(fs::file_size(written[0]), size);
}

TEST_F(Cli, CompileSweepBuildsWhatSm90SweepTimesAndStandsAlone) {
  const std::string suite = put("lin.txt", "lin142 2048 142 4096\n");
  // What first use builds for 142 tokens: the ladder's five tiles at four splits. The sweep adds the swapped rungs
  // (144 and 72 wide, on 64 and 128 feature rows, at four splits). The build then names the missing kernels folder.
  const std::map<std::string, std::string> no_kernels = {{"TILEWISE_KERNELS_DIR", "/nonexistent/kernels"}};
  const Ran first_use = run({"compile", "--suite", suite, "--first-use"}, no_kernels);
  EXPECT_NE(first_use.err.find("compiling 20 instantiations"), std::string::npos) << first_use.all();
  const Ran sweep = run({"compile", "--suite", suite, "--sweep"}, no_kernels);
  EXPECT_NE(sweep.err.find("compiling 36 instantiations"), std::string::npos) << sweep.all();
  EXPECT_TRUE(Ends(sweep, 2, "TILEWISE_KERNELS_DIR=/nonexistent/kernels is not a folder of kernel sources"));
  const Ran both = run({"compile", "--suite", suite, "--sweep", "--first-rule"});
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.all().find("excludes"), std::string::npos) << both.all();
}

// Given no option, compile once began one problem's whole feasible set (some 283,000 instantiations, days of
// building) and printed nothing more, as if hung. Past 1,000 it is refused, naming the count and the options.
TEST_F(Cli, CompileBuildsTheWholeFeasibleSetOnlyWhenAskedFor) {
  const std::string suite = kSource + "/suites/square.txt";
  const Ran unasked = run({"compile", "--suite", suite, "--only", "sq4096", "--cubin-dir", "cubins"});
  EXPECT_TRUE(Ends(unasked, 2, " instantiations make the whole feasible set of these problems"));
  EXPECT_TRUE(Ends(unasked, 2, "say what to build with --first-rule, --first-use, --sweep, --config C or --every N, "
                               "or give --all"));
  EXPECT_FALSE(exists("cubins"));
  // Asked for (or thinned, as CI does), the build starts, and then names the missing kernels folder.
  const std::map<std::string, std::string> no_kernels = {{"TILEWISE_KERNELS_DIR", "/nonexistent/kernels"}};
  for (const std::vector<std::string>& choice :
       {std::vector<std::string>{"--all"}, {"--dtypes", "bf16,fp8", "--layouts", "TN,NN", "--every", "2003"}}) {
    std::vector<std::string> args = {"compile", "--suite", suite, "--only", "sq4096"};
    args.insert(args.end(), choice.begin(), choice.end());
    const Ran ran = run(args, no_kernels);
    EXPECT_TRUE(Ends(ran, 2, "TILEWISE_KERNELS_DIR=/nonexistent/kernels is not a folder")) << choice[0];
    EXPECT_NE(ran.err.find("compiling "), std::string::npos) << ran.err;
  }
  const Ran both = run({"compile", "--suite", suite, "--all", "--first-rule"});
  EXPECT_NE(both.status, 0);
  EXPECT_NE(both.all().find("excludes"), std::string::npos) << both.all();
}

// A build says how far it has got (every 10 s, and at its end), so a long one never looks hung; one the cache holds
// whole says nothing more.
TEST_F(Cli, CompileSaysHowFarItsBuildHasGot) {
  const std::vector<std::string> args = {"compile", "--suite", kSource + "/suites/decode.txt", "--only", "dec_m1_4096",
                                         "--first-rule"};
  const Ran built = run(args);
  ASSERT_EQ(built.status, 0) << built.all();
  EXPECT_NE(built.err.find("\n[2/2] after "), std::string::npos) << built.err;
  const Ran cached = run(args);
  ASSERT_EQ(cached.status, 0) << cached.all();
  EXPECT_EQ(cached.err.find("] after "), std::string::npos) << cached.err;
}

TEST_F(Cli, SuiteShowsALinesOwnDtypeLayoutAndPadAsEveryCommandRunsIt) {
  const Ran shown = run({"suite", put("s.txt", "fixed 64 32 128 dtype=fp16 layout=NN pad=8\nfree 64 32 128\n"),
                         "--dtypes", "bf16,fp8", "--layouts", "TN,NN"});
  ASSERT_EQ(shown.status, 1) << shown.all();  // fp8 NN is refused
  EXPECT_NE(shown.out.find("fixed          fp16  NN     64     32    128 pad=8"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("fixed          bf16"), std::string::npos) << shown.out;  // taken in its own dtype alone
  EXPECT_NE(shown.out.find("free           bf16  NN"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("free           fp8   NN"), std::string::npos) << shown.out;  // refused, and said why
  EXPECT_NE(shown.out.find("fp8 e4m3 needs layout TN"), std::string::npos) << shown.out;
}

// README: `suite` exits non-zero when any problem is invalid; it exited 0 with every problem refused. It still prints
// every line's verdict, and `choose` every other problem's choice.
TEST_F(Cli, SuiteAndChooseExitNonZeroWhenTheLibraryRefusesAProblem) {
  const std::string suite = put("s.txt", "ok 64 64 64\na 4294967297 16 16\npadded 64 64 64 pad=2147483647\n");
  const Ran shown = run({"suite", suite});
  EXPECT_TRUE(Ends(shown, 1, "a: M = 4294967297 exceeds 2147483647"));
  EXPECT_TRUE(Ends(shown, 1, "padded: lda = 2147483711 exceeds 2147483647"));
  EXPECT_NE(shown.out.find("0.0 MB  ok\n"), std::string::npos) << shown.out;
  const Ran chosen = run({"choose", "--suite", suite, "--no-shipped"});
  EXPECT_TRUE(Ends(chosen, 1, "2 refused, as the library refuses them"));
  EXPECT_NE(chosen.out.find("\nok "), std::string::npos) << chosen.out;
  EXPECT_TRUE(Ends(run({"suite", put("fine.txt", "ok 64 64 64\n")}), 0, "1 problems"));
  EXPECT_TRUE(Ends(run({"choose", "--suite", "fine.txt"}), 0, "\nok "));
}

// ---- sizes ------------------------------------------------------------------------------------------------------

TEST_F(Cli, SizesThatOverflowAreRefused) {
  const Ran suite = run({"suite", put("s.txt", "cube 1500000000 1500000000 1500000000\n")});
  EXPECT_TRUE(Ends(suite, 1, "cube: the operands' size overflows 64 bits"));
  EXPECT_EQ(suite.out.find("-4946744"), std::string::npos) << "no negative set size";
  EXPECT_TRUE(Ends(run({"quantize", put("w.bin", std::string(128, '\0')), "-o", "w.tww", "--rows", "1", "--cols",
                        "4611686018427387904"}),
                   2, "overflows 64 bits"));
  // A 116-byte file whose header's n x k x 2 wraps to 0.
  put("forged.tww",
      "TWGEMV1\n"
      R"({"format":"bf16","k":2147483648,"n":4294967296,"row_bytes":4294967296,"scale_bytes": 0,"scale_type":"none"})"
      "\n");
  EXPECT_TRUE(Ends(run({"quantize", "forged.tww", "-o", "back.f32", "--dequantize"}), 2, "forged.tww: bad header"));
  EXPECT_FALSE(exists("back.f32"));
}

// ---- choose refuses what the library refuses ------------------------------------------------------------------

TEST_F(Cli, ChooseShowsNoChoiceForAProblemTheLibraryRefuses) {
  const std::string suite = put("s.txt", "ok 256 256 256\nhuge 2147483648 64 64\n");
  const Ran r = run({"choose", "--suite", suite, "--dtypes", "bf16,fp8", "--layouts", "NN"});
  EXPECT_TRUE(Ends(r, 1, "3 refused, as the library refuses them"));
  EXPECT_TRUE(Ends(r, 1, "huge bf16 NN: huge: M = 2147483648 exceeds 2147483647"));
  EXPECT_TRUE(Ends(r, 1, "ok fp8 NN: ok: fp8 e4m3 needs layout TN"));
  const std::string table = r.out.substr(0, r.out.find("refused"));
  EXPECT_NE(table.find("\nok "), std::string::npos) << r.out;
  EXPECT_EQ(table.find("huge "), std::string::npos) << "a choice shown for a refused problem:\n" << r.out;
  EXPECT_EQ(table.find(" fp8 "), std::string::npos) << "a choice shown for fp8 NN:\n" << r.out;
}

// `--floor` shows what a floor file would choose in place of the one built into the library: the same problem goes
// to cuBLASLt under a floor with no points, and a floor file that is not there is named.
TEST_F(Cli, ChooseReadsAFloorFileInPlaceOfTheBuiltInOne) {
  const std::vector<std::string> args = {"choose", "--suite", kSource + "/suites/sweep-fresh.txt", "--only",
                                         "s20261203_0019_col", "--no-shipped", "--no-machine-database"};
  const Ran built_in = run(args);
  EXPECT_EQ(built_in.status, 0) << built_in.all();
  EXPECT_NE(built_in.out.find("sm90     floor"), std::string::npos) << built_in.out;
  nlohmann::json floor = nlohmann::json::parse(std::ifstream(kSource + "/data/floor-h200.json"));
  floor["points"] = nlohmann::json::array();
  put("empty-floor.json", floor.dump());
  std::vector<std::string> with_file = args;
  with_file.insert(with_file.end(), {"--floor", "empty-floor.json", "--why"});
  const Ran empty = run(with_file);
  EXPECT_EQ(empty.status, 0) << empty.all();
  EXPECT_NE(empty.out.find("floor empty-floor.json: 0 points, in place of the one built into the library; the library "
                           "takes them only on NVIDIA H200 (132 SMs, cc 9.0)"),
            std::string::npos)
      << empty.out;
  EXPECT_NE(empty.out.find("cublaslt heuristic"), std::string::npos) << empty.out;
  const std::string none_near =
      fmt::format("floor: sm90: 0 of the {} measured sm90 problems", floor["neighbours"].get<int>());
  EXPECT_NE(empty.out.find(none_near), std::string::npos) << empty.out;
  with_file[with_file.size() - 2] = "no-such-floor.json";
  EXPECT_TRUE(Ends(run(with_file), 2, "no-such-floor.json: cannot open"));
  with_file[with_file.size() - 2] = "";  // an unset variable in a script: never the built-in floor in its place
  EXPECT_TRUE(Ends(run(with_file), 2, "--floor names no file"));
}

// `--why` follows each choice the floor made with what it said of each family whose rule runs the problem.
TEST_F(Cli, ChooseWhySaysWhatTheFloorSaidOfEachFamily) {
  const std::string suite = kSource + "/suites/square.txt";
  const Ran plain = run({"choose", "--suite", suite, "--only", "sq4096", "--no-shipped"});
  EXPECT_EQ(plain.status, 0) << plain.all();
  EXPECT_EQ(plain.out.find("    floor: "), std::string::npos) << plain.out;
  const Ran why = run({"choose", "--suite", suite, "--only", "sq4096", "--no-shipped", "--why"});
  EXPECT_EQ(why.status, 0) << why.all();
  EXPECT_NE(why.out.find("\n    floor: sm90: "), std::string::npos) << why.out;
}

// The library searches the per-machine database first-use tuning keeps ($TILEWISE_DB, else under the cache folder)
// whenever it exists; `choose` read only --database and the shipped one, so after tuning it misreported what runs.
TEST_F(Cli, ChooseSearchesTheMachineDatabaseAsTheLibraryDoes) {
  const std::string machine = (dir_ / "machine.json").string();
  fs::copy_file(kSource + "/data/database-h200.json", machine);
  const std::vector<std::string> args = {"choose", "--suite", kSource + "/suites/llm24.txt", "--only", "sqS",
                                         "--no-shipped", "--why"};
  const Ran tuned = run(args, {{"TILEWISE_DB", machine}});
  EXPECT_TRUE(Ends(tuned, 0, "machine database " + machine + ": 129 problems, measured on NVIDIA H200 (132 SMs)"));
  EXPECT_NE(tuned.out.find("cublaslt database "), std::string::npos) << tuned.out;
  EXPECT_NE(tuned.out.find("\n    from: machine database " + machine + "\n"), std::string::npos) << tuned.out;
  // Searched before --database, as the library searches them; left out on request.
  const Ran both = run({"choose", "--suite", kSource + "/suites/llm24.txt", "--only", "sqS", "--why", "--database",
                        database()}, {{"TILEWISE_DB", machine}});
  EXPECT_NE(both.out.find("\n    from: machine database "), std::string::npos) << both.out;
  std::vector<std::string> without = args;
  without.push_back("--no-machine-database");
  const Ran left_out = run(without, {{"TILEWISE_DB", machine}});
  EXPECT_TRUE(Ends(left_out, 0, "cublaslt heuristic"));
  EXPECT_EQ(left_out.out.find("machine database"), std::string::npos) << left_out.out;
  // A corrupt one is named, as the library names it.
  EXPECT_TRUE(Ends(run(args, {{"TILEWISE_DB", (dir_ / put("bad.json", "{")).string()}}), 2, "bad.json:"));
}

// ---- campaigns ------------------------------------------------------------------------------------------------

TEST_F(Cli, CampaignsThatDoNotHoldTheirFiguresAreNeitherValidNorExported) {
  tune::CaseResult twice = tuned_case("sq4096 bf16 TN sm90", 10);
  twice.best_us = 2 * twice.start_us;
  tune::CaseResult negative = tuned_case("a", 10);
  negative.rounds[0].incumbent_us[1] = -10;
  tune::CaseResult m5 = tuned_case("b", 10);
  m5.c.problem.M = -5;
  tune::CaseResult tampered = tuned_case("c", 10);
  tampered.rounds[0].winner_us[0] = 9.9;
  for (const auto& [name, c, says] :
       {std::tuple{"twice.json", twice, "best_us"}, std::tuple{"negative.json", negative, "sample -10 is not a time"},
        std::tuple{"m5.json", m5, "M = -5 must be positive"}, std::tuple{"tampered.json", tampered, "latency_us"}}) {
    SCOPED_TRACE(name);
    campaign(name, {c});
    EXPECT_TRUE(Ends(run({"check", name}), 1, says));
    EXPECT_TRUE(Ends(run({"campaign", name, "--database", "db.json"}), 1, "no database is written from them"));
    EXPECT_FALSE(exists("db.json"));
  }
  campaign("good.json", {tuned_case("sq4096 bf16 TN sm90", 10)});
  EXPECT_TRUE(Ends(run({"check", "good.json"}), 0, "every figure matches its samples"));
  EXPECT_TRUE(Ends(run({"campaign", "good.json", "--database", "db.json"}), 0, "database: db.json (1 problems"));
  EXPECT_TRUE(Ends(run({"campaign", "good.json", "good.json"}), 2, "given twice: each input counts once"));
  EXPECT_TRUE(Ends(run({"campaign", "good.json", "--grid", "./good.json"}), 2, "given twice: each input counts once"));
}

TEST_F(Cli, AReTunedCaseIsTakenFromTheLatestFileWhichIsNamed) {
  campaign("old.json", {tuned_case("sq4096 bf16 TN sm90", 10), tuned_case("other", 12, 2048)});
  campaign("new.json", {tuned_case("sq4096 bf16 TN sm90", 20)});
  const Ran r = run({"campaign", "old.json", "new.json", "--database", "db.json"});
  EXPECT_TRUE(Ends(r, 0, "case 'sq4096 bf16 TN sm90': re-tuned in new.json, which replaces old.json"));
  const select::Database db = select::read_database((dir_ / "db.json").string());
  EXPECT_EQ(db.records.size(), 2u);
  const select::Entry* retuned = select::lookup(db, tuned_case("x", 1).c.problem, "sm90");
  ASSERT_NE(retuned, nullptr);
  EXPECT_EQ(retuned->source, "new.json") << "the latest file's result, though the earlier one was faster";
  const select::Entry* kept = select::lookup(db, tuned_case("x", 1, 2048).c.problem, "sm90");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->source, "old.json");
}

// ---- protocols ------------------------------------------------------------------------------------------------

std::string protocol(const std::string& range, const std::string& repeats) {
  return "question = \"q\"\n[instrument]\nsuites = [\"" + kSource + "/suites/square.txt\"]\nonly = [\"sq256\"]\n"
         "dtypes = [\"bf16\"]\nlayouts = [\"TN\"]\narms = [\"cublaslt\", \"cublaslt-default\"]\nrepeats = " + repeats +
         "\n[[prediction]]\nid = \"p\"\nproblem = \"sq256\"\ndtype = \"bf16\"\nlayout = \"TN\"\nmetric = \"tflops\"\n"
         "arm = \"cublaslt\"\nrange = " + range + "\nfalsifier = \"f\"\n";
}

TEST_F(Cli, ProtocolsWithBoundsOrRepeatsOutOfRangeAreRefusedBeforeTheGpu) {
  EXPECT_TRUE(Ends(run({"bench", "--protocol", put("inf.toml", protocol("[-inf, inf]", "3")), "-o", "r.json"}), 2,
                   "inf.toml:16: range bound -inf is not finite"));
  EXPECT_TRUE(Ends(run({"bench", "--protocol", put("int.toml", protocol("[0, 9007199254740993]", "3")), "-o", "r.json"}),
                   2, "range bound 9007199254740993 is not exactly a double"));
  EXPECT_TRUE(Ends(run({"bench", "--protocol", put("rep.toml", protocol("[1, 2]", "4294967297")), "-o", "r.json"}), 2,
                   "'repeats' = 4294967297 is out of range"));
}

// ---- outputs --------------------------------------------------------------------------------------------------

TEST_F(Cli, QuantizeNeverWritesOverItsInput) {
  const std::string w = put("w.bin", std::string(4 * 64 * 2, '\0'));
  EXPECT_TRUE(Ends(run({"quantize", w, "-o", w, "--rows", "4", "--cols", "64", "--overwrite"}), 2,
                   "an output never replaces what it is made from"));
  EXPECT_TRUE(Ends(run({"quantize", w, "-o", "./w.bin", "--rows", "4", "--cols", "64"}), 2,
                   "an output never replaces what it is made from"));
  EXPECT_EQ(fs::file_size(dir_ / w), 4u * 64 * 2);
}

TEST_F(Cli, DequantizeRefusesTheOptionsItsFileAlreadyAnswers) {
  // The packed file's header gives its format, type and shape; these options were once ignored without a word.
  const std::string w = put("w.bin", std::string(4 * 64 * 2, '\0'));
  ASSERT_EQ(run({"quantize", w, "-o", "w.tww", "--rows", "4", "--cols", "64"}).status, 0);
  for (std::vector<std::string> extra : {std::vector<std::string>{"--rows", "8"}, {"--format", "q8_0"}, {"--cpu"}}) {
    std::vector<std::string> args{"quantize", "w.tww", "-o", "back.f32", "--dequantize"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_TRUE(Ends(run(args), 2, extra[0] + " excludes --dequantize")) << extra[0];
  }
  EXPECT_TRUE(Ends(run({"quantize", w, "-o", "x.tww", "--rows", "4", "--cols", "64", "--to", "bf16"}), 2,
                   "--to requires --dequantize"));
  // A size past 64 bits was clamped to 9223372036854775807, and the error then named a number nobody typed.
  EXPECT_TRUE(Ends(run({"quantize", w, "-o", "x.tww", "--rows", "99999999999999999999", "--cols", "64"}), 2,
                   "99999999999999999999 is not a whole number in 1 .. 9223372036854775807"));
  EXPECT_FALSE(exists("back.f32"));
  EXPECT_FALSE(exists("x.tww"));
}

TEST_F(Cli, WritersRefuseAnExistingFileWithoutOverwrite) {
  const std::string db = database(), r = receipt();
  put("taken.json", "mine");
  fs::create_directory(dir_ / "page");
  put("page/index.html", "mine");
  campaign("c.json", {tuned_case("sq4096 bf16 TN sm90", 10)});
  EXPECT_TRUE(Ends(run({"db", "merge", db, "-o", "taken.json"}), 2, "taken.json exists; it is replaced only with --overwrite"));
  EXPECT_TRUE(Ends(run({"campaign", "c.json", "--database", "taken.json"}), 2, "taken.json exists"));
  EXPECT_TRUE(Ends(run({"report", r, "-o", "page"}), 2, "page/index.html exists"));
  // tune's database and bench's receipt, refused before the GPU is looked for (none here).
  put("s.txt", "sq256 256 256 256\n");
  EXPECT_TRUE(Ends(run({"tune", "--suite", "s.txt", "--campaign", "new.json", "--database", "taken.json"}), 2,
                   "taken.json exists; it is replaced only with --overwrite"));
  EXPECT_TRUE(Ends(run({"tune", "--suite", "s.txt", "--campaign", "new.json", "--database", "s.txt", "--overwrite"}), 2,
                   "an output never replaces what it is made from"));
  EXPECT_TRUE(Ends(run({"bench", "--suite", "s.txt", "-o", "s.txt", "--overwrite"}), 2,
                   "an output never replaces what it is made from"));
  EXPECT_EQ(slurp(dir_ / "s.txt"), "sq256 256 256 256\n");
  EXPECT_FALSE(fs::exists(dir_ / "new.json"));
  EXPECT_EQ(slurp(dir_ / "taken.json"), "mine");
  EXPECT_EQ(slurp(dir_ / "page/index.html"), "mine");
  EXPECT_TRUE(Ends(run({"db", "merge", db, "-o", db, "--overwrite"}), 2, "an output never replaces what it is made from"));
  EXPECT_TRUE(Ends(run({"db", "merge", db, "-o", "taken.json", "--overwrite"}), 0, "database: taken.json"));
  EXPECT_TRUE(Ends(run({"report", r, "-o", "page", "--overwrite"}), 0, "report: page/index.html"));
  // A user's file in the page's tables/ is named, not deleted with the previous tables.
  put("page/tables/notes.csv", "mine");
  EXPECT_TRUE(Ends(run({"report", r, "-o", "page", "--overwrite"}), 2,
                   "page/tables/notes.csv: not one of the page's tables (page/index.html does not link it)"));
  EXPECT_EQ(slurp(dir_ / "page/tables/notes.csv"), "mine");
}

TEST_F(Cli, WeightsThatDoNotComeBackAreCountedAndFailTheCommand) {
  std::string raw(2 * 64 * 2, '\0');
  raw[7] = char(0x7F), raw[6] = char(0xC0);                 // weight 3: bf16 NaN (little-endian)
  raw[2 * 70 + 1] = char(0x7F), raw[2 * 70] = char(0x80);   // weight 70: +Inf
  raw[2 * 100 + 1] = char(0x7F), raw[2 * 100] = char(0x61); // weight 100: about 3e38, finite
  put("w.bin", raw);
  EXPECT_TRUE(Ends(run({"quantize", "w.bin", "-o", "w.tww", "--rows", "2", "--cols", "64"}), 1,
                   "NOT FAITHFUL: 2 weights not finite (NaN or Inf), 1 groups whose fp16 scale is past the range"));
  // Nothing is written (the Python API refuses the same weights): no file for a later dequantize to read as zeros.
  EXPECT_FALSE(exists("w.tww"));
  put("kept.tww", "mine");
  EXPECT_TRUE(Ends(run({"quantize", "w.bin", "-o", "kept.tww", "--rows", "2", "--cols", "64", "--overwrite"}), 1,
                   "kept.tww: not written"));
  EXPECT_EQ(slurp(dir_ / "kept.tww"), "mine");
}

// ---- bench and tune check everything before they look for a GPU ------------------------------------------------

TEST_F(Cli, BenchAndTuneRefuseBadOptionsBeforeTheGpu) {
  const std::string suite = kSource + "/suites/square.txt";
  for (const std::string& bad : {"-5", "nan", "inf"}) {
    const Ran r = run({"bench", "--suite", suite, "--warmup-s", bad, "-o", "r.json"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.all().find("--warmup-s"), std::string::npos) << r.all();
    EXPECT_EQ(r.all().find("GPU"), std::string::npos) << r.all();
  }
  for (const std::vector<std::string> args :
       {std::vector<std::string>{"bench", "--suite", suite, "--graph-ms", "0", "-o", "r.json"},
        {"tune", "--suite", suite, "--graph-ms", "0", "--campaign", "c.json"},
        {"tune", "--suite", suite, "--warmup-s", "nan", "--campaign", "c.json"},
        {"tune", "--suite", suite, "--mode", "bogus", "--campaign", "c.json"}}) {
    const Ran r = run(args);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.all().find("--graph-ms") != std::string::npos || r.all().find("--warmup-s") != std::string::npos ||
                r.all().find("--mode: bogus not in {descent,grid}") != std::string::npos)
        << r.all();
    EXPECT_EQ(r.all().find("GPU"), std::string::npos) << r.all();
  }
  EXPECT_TRUE(Ends(run({"bench", "--suite", suite, "-o", "no/such/folder/r.json"}), 2, "its folder no/such/folder does not exist"));
  // A receipt over a file an arm reads (a database, a floor, first-use tuning's database) got as far as the GPU.
  const std::string db = database(), floor = copy_of_shipped_floor();
  for (const auto& [arm, file] : {std::pair{"selected:" + db, db}, std::pair{"selected:floor:" + floor, floor},
                                  std::pair{"selected:tune:" + db, db}}) {
    const std::string before = slurp(dir_ / file);
    const Ran r = run({"bench", "--suite", suite, "--arms", "cublaslt-default," + arm, "-o", "./" + file, "--overwrite"});
    EXPECT_TRUE(Ends(r, 2, "an output never replaces what it is made from")) << arm;
    EXPECT_EQ(r.all().find("GPU"), std::string::npos) << r.all();
    EXPECT_EQ(slurp(dir_ / file), before) << arm;
  }
  put("corrupt.json", "{\"schema\": \"tilewise.campaign/1\", ");
  EXPECT_TRUE(Ends(run({"tune", "--suite", suite, "--only", "sq256", "--campaign", "corrupt.json"}), 2,
                   "corrupt.json:1:"));
  tune::CaseResult twice = tuned_case("sq256 bf16 TN sm90", 10);
  twice.best_us *= 2;
  campaign("twice.json", {twice});
  EXPECT_TRUE(Ends(run({"tune", "--suite", suite, "--only", "sq256", "--campaign", "twice.json"}), 2,
                   "twice.json: the campaign does not hold its figures"));
}

// ---- small things --------------------------------------------------------------------------------------------

// An arm of --fastest-of that no receipt has was taken without a word (the table headed with it), where a misspelled
// --arm is refused: it is named, with the arms the receipts have.
TEST_F(Cli, HeadlineRefusesAFastestOfArmNoReceiptHas) {
  fs::copy_file(kSource + "/results/selected-llm24-main-job.json", dir_ / "selected.json");
  EXPECT_TRUE(Ends(run({"headline", "--fastest-of", "nosuch,selected", "selected.json"}), 2,
                   "no receipt has the arm nosuch, one of the fastest of nosuch, selected; their arms: cublaslt, "
                   "cublaslt-default, selected"));
  EXPECT_TRUE(Ends(run({"headline", "--fastest-of", "selected,cublaslt", "selected.json"}), 0,
                   "| fastest of selected, cublaslt vs cuBLASLt default |"));
}

TEST_F(Cli, CheckQuietPrintsOnlyTheInvalidFilesAndTheCount) {
  const Ran r = run({"check", "--quiet", receipt(), put("bad.json", "{")});
  EXPECT_TRUE(Ends(r, 1, "INVALID  bad.json"));
  EXPECT_TRUE(Ends(r, 1, "1 of 2 files valid"));
  EXPECT_EQ(r.out.find("receipt.json"), std::string::npos) << r.out;
}

// `info` names the commands that work without a GPU; each of them runs here, and the others stop for want of one.
TEST_F(Cli, InfoNamesExactlyTheCommandsThatWorkWithoutAGpu) {
  const Ran info = run({"info"});
  const std::string marker = "commands that work without a GPU: ";
  const size_t at = info.out.find(marker);
  if (at == std::string::npos) GTEST_SKIP() << "a GPU is usable here: " << info.out;
  std::vector<std::string> named;
  const std::string list = info.out.substr(at + marker.size(), info.out.find('\n', at) - at - marker.size());
  for (size_t from = 0; from <= list.size();) {
    const size_t comma = std::min(list.find(", ", from), list.size());
    named.push_back(list.substr(from, comma - from));
    from = comma + 2;
  }
  const std::string suite = kSource + "/suites/square.txt", r = receipt(), db = database();
  campaign("c.json", {tuned_case("sq4096 bf16 TN sm90", 10)});
  put("w.bin", std::string(4 * 64 * 2, '\0'));
  // Each command with inputs it takes, and how it ends on them (fit finds no sm90:sweep results in the sample
  // receipt, which is all it refuses here).
  const std::map<std::string, std::pair<std::vector<std::string>, int>> runs = {
      {"info", {{"info"}, 0}},
      {"check", {{"check", r}, 0}},
      {"suite", {{"suite", suite}, 0}},
      {"choose", {{"choose", "--suite", suite}, 0}},
      {"fit", {{"fit", r}, 2}},
      {"compile", {{"compile", "--suite", kSource + "/suites/decode.txt", "--only", "dec_m1_4096", "--first-rule"}, 0}},
      {"headline", {{"headline", r, "--arm", "cublaslt"}, 0}},
      {"report", {{"report", r, "-o", "page"}, 0}},
      {"quantize", {{"quantize", "w.bin", "-o", "w.tww", "--rows", "4", "--cols", "64"}, 0}},
      {"campaign", {{"campaign", "c.json"}, 0}},
      {"db merge", {{"db", "merge", db, "-o", "merged.json"}, 0}},
      {"sweep", {{"sweep", "--seed", "1", "--count", "4", "-o", "sweep.txt"}, 0}},
      {"floor fit",
       {{"floor", "fit", "--fit", floor_receipt("fitted.json"), "--judge", floor_receipt("judged.json", 8), "-o",
         "floor.json"},
        0}},
  };
  std::vector<std::string> known;
  for (const auto& [name, _] : runs) known.push_back(name);
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named, known) << "info names: " << list;
  for (const auto& [name, how] : runs) {
    SCOPED_TRACE(name);
    const Ran ran = run(how.first);
    EXPECT_EQ(ran.status, how.second) << ran.all();
    if (name != "info") EXPECT_EQ(ran.all().find("no CUDA GPU"), std::string::npos) << ran.all();
  }
  const Ran bench = run({"bench", "--suite", suite, "--only", "sq256", "-o", "r.json"});
  EXPECT_TRUE(Ends(bench, 2, "no CUDA GPU is usable here"));
  EXPECT_NE(bench.all().find("'tilewise info' names the commands that work without one"), std::string::npos)
      << bench.all();
  EXPECT_TRUE(Ends(run({"tune", "--suite", suite, "--only", "sq256", "--campaign", "t.json"}), 2,
                   "no CUDA GPU is usable here"));
}

// The processes whose parent is `pid`, from /proc.
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = slurp(e.path() / "stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid && state != 'Z')
      out.push_back(std::stoi(name));
  }
  return out;
}

// `compile` builds in forked workers; killing it once left them compiling on. They now die with it.
TEST_F(Cli, KillingCompileLeavesNoWorkers) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // orphaned workers become ours, so they can be found and reaped
  const pid_t tool = fork();
  if (tool == 0) {
    setenv("TILEWISE_CACHE_DIR", (dir_ / "jit-cache").c_str(), 1);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1), dup2(devnull, 2);
    const std::string suite = kSource + "/suites/square.txt";
    execl(TILEWISE_BIN, TILEWISE_BIN, "compile", "--suite", suite.c_str(), "--dtypes", "bf16,fp16", "--first-use",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(tool, 0);
  std::vector<pid_t> workers;
  for (int i = 0; i < 600 && workers.empty(); ++i) {  // the workers start once the jobs are planned
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = children_of(tool);
  }
  if (workers.empty()) {
    kill(tool, SIGKILL);
    waitpid(tool, nullptr, 0);
    GTEST_SKIP() << "compile forked no workers here (one usable core?)";
  }
  ASSERT_EQ(kill(tool, SIGTERM), 0);
  ASSERT_EQ(waitpid(tool, nullptr, 0), tool);
  // Every worker must be gone within seconds; reap each as it goes (they are our children now).
  std::vector<pid_t> left = workers;
  for (int i = 0; i < 100 && !left.empty(); ++i) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::erase_if(left, [](pid_t w) { return kill(w, 0) != 0; });
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (pid_t w : left) kill(w, SIGKILL);
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  EXPECT_TRUE(left.empty()) << left.size() << " of " << workers.size() << " workers outlived the killed compile";
}

}  // namespace
}  // namespace tilewise::testkit
