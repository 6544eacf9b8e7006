#include "receipt/receipt.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/error.hpp"
#include "core/gzip.hpp"
#include "expect_error.hpp"
#include "receipt/check.hpp"
#include "receipt/sample_receipt.hpp"
#include "temp_dir.hpp"

namespace tilewise::receipt {
namespace {

namespace fs = std::filesystem;

using testkit::TempDir;

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

using tilewise::testkit::Contains;
using tilewise::testkit::error_of;

TEST(SampleReceipt, IsValidAndComplete) {
  const Receipt r = sample_receipt();
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(r.problems.empty());
  ASSERT_EQ(r.results.size(), 2u);
  for (const Result& res : r.results) {
    ASSERT_EQ(res.arms.size(), 2u);
    for (const ArmResult& a : res.arms) {
      EXPECT_TRUE(a.tflops.has_value()) << a.arm;
      EXPECT_EQ(a.us.size(), 3u);
    }
    ASSERT_EQ(res.comparisons.size(), 1u);
  }
  // 2048^3 bf16 in ~26 us is about 660 TFLOPS; the tuned arm's range lies under the default's.
  EXPECT_NEAR(*r.results[0].arms[0].tflops, 660.8, 0.1);
  EXPECT_EQ(r.results[0].comparisons[0].claim, "faster");
  EXPECT_EQ(r.results[1].comparisons[0].claim, "none");
  EXPECT_NEAR(r.machine.read_bw_gbps, 4227.4, 0.1);  // 2 GiB / 508 us
  EXPECT_EQ(r.clocks.during.sm_mhz_median, 1700);
}

TEST(ReceiptJson, HasSchemaAndTopLevelFields) {
  const nlohmann::json j = sample_receipt();
  EXPECT_EQ(j.at("schema"), "tilewise.receipt/1");
  for (const char* key : {"created", "command", "notes", "tool", "machine", "protocol", "clocks", "results", "skipped",
                          "problems", "valid"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j.at("results")[0].at("arms")[0].at("candidates")[2].at("us").is_null());
}

// A result's suite is written where known and read as empty from receipts written before it was recorded.
TEST(ReceiptJson, ResultSuiteIsOptional) {
  Receipt r = sample_receipt();
  nlohmann::json j = r;
  EXPECT_FALSE(j.at("results")[0].contains("suite"));
  r.results[0].suite = "square";
  j = r;
  EXPECT_EQ(j.at("results")[0].at("suite"), "square");
  EXPECT_EQ(j.get<Receipt>(), r);
}

// The kernel sources a run compiled are written where recorded (with the folder that stood in for the library's own)
// and read as empty from receipts written before.
TEST(ReceiptJson, KernelSourcesAreOptional) {
  Receipt r = sample_receipt();
  nlohmann::json j = r;
  EXPECT_FALSE(j.at("tool").contains("kernel_sources"));
  EXPECT_FALSE(j.at("tool").contains("kernel_sources_dir"));
  EXPECT_EQ(j.get<Receipt>(), r);
  r.tool.kernel_sources = "0123456789abcdef0123456789abcdef";
  r.tool.kernel_sources_dir = "/tmp/kernels-variant";
  j = r;
  EXPECT_EQ(j.at("tool").at("kernel_sources"), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(j.at("tool").at("kernel_sources_dir"), "/tmp/kernels-variant");
  EXPECT_EQ(j.get<Receipt>(), r);
  j.at("tool").erase("commit");
  EXPECT_THROW(j.get<Receipt>(), nlohmann::json::exception);
}

TEST(ReceiptJson, WholeReceiptRoundTrips) {
  const Receipt r = sample_receipt();
  const nlohmann::json j = r;
  EXPECT_EQ(j.get<Receipt>(), r);
  // Also through text, where doubles must survive printing.
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Receipt>(), r);
}

TEST(ReceiptJson, RoundTripKeepsDifferences) {
  // Equality is not vacuous: a changed field survives the trip and compares unequal.
  Receipt r = sample_receipt();
  r.results[1].arms[0].us[2] = 32.5;
  const Receipt back = nlohmann::json(r).get<Receipt>();
  EXPECT_EQ(back, r);
  EXPECT_NE(back, sample_receipt());
}

// nlohmann reads an integer into an int by a cast: repeats = 2^32 + 10 read as 10 and the receipt checked valid.
TEST(ReceiptJson, AnIntegerItsFieldCannotHoldIsRefusedWithItsPlace) {
  nlohmann::json j = sample_receipt();
  j["protocol"]["repeats"] = 4294967306LL;
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { j.get<Receipt>(); }),
                                "protocol.repeats = 4294967306 does not fit its field"));
  j = sample_receipt();
  j["results"][0]["rotation_sets"] = int64_t(1) << 40;
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { j.get<Receipt>(); }),
                                "results[0].rotation_sets = 1099511627776 does not fit its field"));
  j = sample_receipt();
  j["results"][0]["seed"] = 18446744073709551615u;  // a 64-bit seed is whole
  EXPECT_NO_THROW(j.get<Receipt>());
}

TEST(ReceiptJson, MissingFieldThrows) {
  nlohmann::json j = sample_receipt();
  j.erase("protocol");
  EXPECT_THROW(j.get<Receipt>(), nlohmann::json::exception);
}

TEST(ReceiptFile, WriteThenReadRoundTrips) {
  TempDir dir;
  const std::string path = dir.file("run.json");
  const Receipt r = sample_receipt();
  write_file(r, path);
  EXPECT_EQ(read_file(path), r);
}

// Committed receipts are stored compressed where they are large (results/*.json.gz).
TEST(ReceiptFile, ACompressedReceiptReadsAndChecksAsThePlainOne) {
  TempDir dir;
  const std::string plain = dir.file("run.json");
  write_file(sample_receipt(), plain);
  std::ifstream in(plain, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  const std::string compressed = dir.file("run.json.gz");
  std::ofstream(compressed, std::ios::binary) << gzip(text);
  EXPECT_EQ(read_file(compressed), read_file(plain));
  const FileVerdict v = check_file(compressed);
  EXPECT_TRUE(v.valid) << (v.problems.empty() ? "" : v.problems[0]);
  std::ofstream(dir.file("cut.json.gz"), std::ios::binary) << gzip(text).substr(0, 100);
  EXPECT_TRUE(Contains(error_of([&] { read_file(dir.file("cut.json.gz")); }), "cut.json.gz: truncated gzip stream"));
}

TEST(ReceiptFile, WriteReplacesAnExistingFile) {
  TempDir dir;
  const std::string path = dir.file("run.json");
  write_text(path, "old contents");
  Receipt r = sample_receipt();
  r.notes = {"second"};
  write_file(r, path);
  EXPECT_EQ(read_file(path).notes, std::vector<std::string>{"second"});
}

TEST(ReceiptFile, WriteLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.file("run.json");
  write_file(sample_receipt(), path);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(ReceiptFile, WriteIntoMissingDirectoryThrowsNamingIt) {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/run.json");
  EXPECT_TRUE(Contains(error_of([&] { write_file(sample_receipt(), path); }), dir.file("no/such/dir/run.json")));
}

TEST(ReceiptFile, FailedWriteKeepsThePreviousReceiptAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.file("run.json");
  write_file(sample_receipt(), path);
  const auto before = read_file(path);
  // The temporary cannot be written whole: files may grow to 100 bytes (past that, write() fails with EFBIG).
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string msg = error_of([&] { write_file(sample_receipt(), path); });
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, handler);
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(path).parent_path()), fs::directory_iterator()), 1)
      << "a temporary file was left behind";
}

TEST(ReceiptFile, ReadMissingFileThrowsNamingPath) {
  TempDir dir;
  const std::string path = dir.file("absent.json");
  const std::string msg = error_of([&] { read_file(path); });
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_TRUE(Contains(msg, "cannot open"));
}

TEST(ReceiptFile, ReadNonJsonThrowsNamingPath) {
  TempDir dir;
  const std::string path = dir.file("garbage.json");
  write_text(path, "this is { not json");
  const std::string msg = error_of([&] { read_file(path); });
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_TRUE(Contains(msg, "not valid JSON"));
}

TEST(ReceiptFile, ReadJsonThatIsNotAReceiptThrowsNamingPath) {
  TempDir dir;
  const std::string path = dir.file("other.json");
  write_text(path, R"({"schema": "tilewise.receipt/1", "results": []})");
  const std::string msg = error_of([&] { read_file(path); });
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_TRUE(Contains(msg, "not a tilewise receipt"));
}

TEST(ReceiptFile, AnotherOfTheToolsFilesIsNamedByItsSchema) {
  // `report` given the shipped database once said "key 'created' not found" (a new user's probe).
  TempDir dir;
  const std::string path = dir.file("db.json");
  write_text(path, R"({"schema": "tilewise.database/1", "records": []})");
  EXPECT_TRUE(Contains(error_of([&] { read_file(path); }),
                       "db.json: not a tilewise receipt: schema 'tilewise.database/1', expected 'tilewise.receipt/1'"));
}

// A value of the wrong JSON type is named by its place in the receipt (nlohmann's diagnostics, on for every target).
TEST(ReceiptFile, AValueOfTheWrongTypeIsNamedByItsPlace) {
  TempDir dir;
  const std::string path = dir.file("wrong_type.json");
  nlohmann::json j = sample_receipt();
  j["protocol"]["repeats"] = "ten";
  write_text(path, j.dump());
  const std::string msg = error_of([&] { read_file(path); });
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_TRUE(Contains(msg, "/protocol/repeats")) << msg;
  const std::vector<std::string> problems = check(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(Contains(problems[0], "/protocol/repeats")) << problems[0];
}

TEST(ReceiptFile, ReadReceiptWithBadValueThrowsNamingPath) {
  TempDir dir;
  const std::string path = dir.file("bad_dtype.json");
  nlohmann::json j = sample_receipt();
  j["results"][0]["problem"]["dtype"] = "fp64";
  write_text(path, j.dump());
  const std::string msg = error_of([&] { read_file(path); });
  EXPECT_TRUE(Contains(msg, path));
  EXPECT_TRUE(Contains(msg, "'fp64'"));
}

}  // namespace
}  // namespace tilewise::receipt
