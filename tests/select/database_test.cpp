// The tuned database as a file: keys, round trip, and corrupt files named where they are wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "expect_error.hpp"
#include "sample_database.hpp"
#include "select/database_file.hpp"

namespace tilewise::select {
namespace {

namespace fs = std::filesystem;
using testkit::kH200;
using testkit::problem;

struct DatabaseFile : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / (std::string("tw_database_") + std::to_string(::getpid()));
  std::string path = (dir / "db.json").string();
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write_text(const std::string& text) { std::ofstream(path, std::ios::trunc) << text; }
  // The sample database written, with one change made to its JSON.
  template <typename F>
  std::string error_after(F&& change) {
    nlohmann::json j = to_json(testkit::sample_database());
    change(j);
    write_text(j.dump(1));
    return testkit::error_of([&] { read_database(path); });
  }
};

TEST(Signature, NamesEverythingThatChangesTheKernelAndNotTheName) {
  Problem p = problem(4096, 8192, 1024);
  EXPECT_EQ(signature(p), "4096x8192x1024 bf16->bf16 TN lda=1024 ldb=1024 ldc=4096");
  EXPECT_EQ(signature(make_problem("fp8", 64, 128, 256, DType::fp8_e4m3, Layout::TN)),
            "64x128x256 fp8->bf16 TN lda=256 ldb=256 ldc=64");
  Problem named = p;
  named.name = "d4k";
  EXPECT_EQ(signature(named), signature(p));
  Problem padded = make_problem("", 4096, 8192, 1024, DType::bf16, Layout::TN, 64);
  EXPECT_NE(signature(padded), signature(p));
}

TEST(Database, LooksUpByProblemAndFamily) {
  const Database db = testkit::sample_database();
  const Entry* e = lookup(db, problem(4096, 4096, 4096), "sm90");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config, testkit::kSm90A);
  EXPECT_EQ(e->us, 180.5);
  EXPECT_EQ(identity_of(db, *e), kH200);
  EXPECT_EQ(lookup(db, problem(4096, 4096, 4096), "gemv"), nullptr);
  EXPECT_EQ(lookup(db, problem(4096, 4096, 4096, DType::fp16), "sm90"), nullptr);
}

TEST_F(DatabaseFile, RoundTrips) {
  const Database db = testkit::sample_database();
  write_database(db, path);
  EXPECT_EQ(read_database(path), db);
  EXPECT_EQ(to_json(read_database(path)), to_json(db));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST_F(DatabaseFile, ATruncatedFileIsNamedByLineAndColumn) {
  const std::string text = to_json(testkit::sample_database()).dump(1);
  write_text(text.substr(0, text.size() / 2));
  const std::string error = testkit::error_of([&] { read_database(path); });
  EXPECT_TRUE(testkit::Contains(error, path + ":"));
  EXPECT_TRUE(testkit::Contains(error, "not valid JSON"));
  write_text("{\n \"schema\": \"tilewise.database/1\",\n \"entries\": [,]\n}\n");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_database(path); }), path + ":3:14: not valid JSON"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_database((dir / "absent.json").string()); }), "cannot open"));
}

TEST_F(DatabaseFile, AWrongSchemaIsRefused) {
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["schema"] = "tilewise.receipt/1"; }),
                                ": /schema: 'tilewise.receipt/1' is not tilewise.database/1"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j.erase("schema"); }), ": /: missing field 'schema'"));
  write_text("[1, 2]");
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { read_database(path); }), "/: expected an object, got array"));
}

TEST_F(DatabaseFile, WrongTypesAreNamedByJsonPointer) {
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["families"]["sm90"]["us"] = "fast"; }),
                                "/entries/0/families/sm90/us: expected a number, got string"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][1]["M"] = 16.5; }),
                                "/entries/1/M: expected an integer, got number"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["identities"][0]["sm_count"] = "132"; }),
                                "/identities/0/sm_count: expected an integer, got string"));
  // A count no GPU has: the rules would size grids for it (0 once divided by zero).
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["identities"][0]["sm_count"] = 0; }),
                                "/identities/0/sm_count: 0 is not an SM count (1..1024)"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["identities"][0]["sm_count"] = 1LL << 40; }),
                                "/identities/0/sm_count: 1099511627776 is not an SM count"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"] = nlohmann::json::object(); }),
                                "/entries: expected an array, got object"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][1]["families"]["cublaslt"].erase("config"); }),
                                "/entries/1/families/cublaslt: missing field 'config'"));
}

// An entry is its family's configuration for its own problem: one the family cannot run there is refused where it
// is read (check, choose and db merge all read databases here), naming the entry and the field.
TEST_F(DatabaseFile, AnEntryItsFamilyCannotRunIsRefusedNamingTheEntryAndField) {
  // /entries/1 is 4096x4096x4096 bf16 TN (entries are in key order).
  EXPECT_EQ(error_after([](auto& j) { j["entries"][1]["families"]["sm90"]["config"] = "block_m=7,stages=1000,split=0"; }),
            path + ": /entries/1/families/sm90/config: sm90 'block_m=7,stages=1000,split=0' cannot run "
                   "4096x4096x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096: block_m=7 is not a wgmma width this build "
                   "wraps");
  EXPECT_TRUE(testkit::Contains(
      error_after([](auto& j) { j["entries"][1]["families"]["sm90"]["config"] = "block_m=128,stages=1000"; }),
      "/entries/1/families/sm90/config: sm90 'block_m=128,stages=1000' cannot run 4096x4096x4096 bf16->bf16 TN "
      "lda=4096 ldb=4096 ldc=4096: stages=1000 is outside 2..16"));
  // A GEMV's configuration for a problem beyond its 16 tokens, and one built for another token count.
  const auto with_gemv = [](auto& entry, const std::string& config) {
    entry["families"]["gemv"] = entry["families"]["sm90"];
    entry["families"]["gemv"]["config"] = config;
  };
  EXPECT_TRUE(testkit::Contains(
      error_after([&](auto& j) {
        with_gemv(j["entries"][1], "m=4,w=bf16,x=bf16,threads=256,cols=2,ksplit=1,unroll=4,hint=na,persistent=0");
      }),
      "/entries/1/families/gemv/config: gemv 'm=4,w=bf16,x=bf16,threads=256,cols=2,ksplit=1,unroll=4,hint=na,"
      "persistent=0' cannot run 4096x4096x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096: the gemv family takes 1..16 "
      "tokens"));
  EXPECT_TRUE(testkit::Contains(
      error_after([&](auto& j) {
        with_gemv(j["entries"][0],
                  "m=4,w=fp16,x=fp16,threads=256,cols=2,ksplit=1,unroll=4,hint=na,persistent=0,layout=NN");
      }),
      "/entries/0/families/gemv/config: gemv 'm=4,w=fp16,x=fp16,threads=256,cols=2,ksplit=1,unroll=4,hint=na,"
      "persistent=0,layout=NN' cannot run 16x16384x4096 fp16->fp16 NN lda=16 ldb=4096 ldc=16: the configuration is "
      "built for M = 4, the problem has M = 16"));
}

TEST_F(DatabaseFile, ValuesThatCannotBeRightAreRefused) {
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["families"]["sm90"]["us"] = -3; }),
                                "/entries/0/families/sm90/us: a time of -3 us is not positive"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["families"]["sm90"]["config"] = "block_m=abc"; }),
                                "/entries/0/families/sm90/config: sm90 config 'block_m=abc': block_m=abc is not an integer"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["families"]["tpu"] = j["entries"][0]["families"]["sm90"]; }),
                                "/entries/0/families/tpu/config: unknown family 'tpu'"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["families"]["sm90"]["identity"] = 3; }),
                                "/entries/0/families/sm90/identity: identity 3 is not in the table of 1"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][1]["K"] = 2048; }),
                                "/entries/1/key: '4096x4096x4096 bf16->bf16 TN lda=4096 ldb=4096 ldc=4096' does not "
                                "match the entry's fields (4096x4096x2048"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"].push_back(j["entries"][0]); }),
                                "/entries/2/key: '16x16384x4096 fp16->fp16 NN lda=16 ldb=4096 ldc=16' repeats /entries/0"));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][0]["dtype"] = "int3"; }), "/entries/0/dtype: "));
  EXPECT_TRUE(testkit::Contains(error_after([](auto& j) { j["entries"][1]["lda"] = 10; }), "/entries/1: "));
}

TEST_F(DatabaseFile, ADatabaseFromAnotherGpuIsRefusedWithTheReasonUnlessOverridden) {
  write_database(testkit::sample_database(), path);
  EXPECT_TRUE(load_database(path, kH200).overridden.empty());
  EXPECT_TRUE(load_database(path, kH200).warnings.empty());
  Identity h100 = kH200;
  h100.gpu = "NVIDIA H100";
  const std::string error = testkit::error_of([&] { load_database(path, h100); });
  EXPECT_TRUE(testkit::Contains(error, path + ": identity 0 was measured elsewhere: gpu: 'NVIDIA H200' recorded, "
                                       "'NVIDIA H100' running"));
  EXPECT_TRUE(testkit::Contains(error, "override"));
  const Loaded used = load_database(path, h100, /*allow_foreign=*/true);
  EXPECT_EQ(used.db, testkit::sample_database());
  ASSERT_EQ(used.overridden.size(), 1u);
  EXPECT_TRUE(testkit::Contains(used.overridden[0], "gpu: 'NVIDIA H200' recorded"));
}

TEST_F(DatabaseFile, ADriverUpdateIsAWarningNotARefusal) {
  write_database(testkit::sample_database(), path);
  const Loaded used = load_database(path, testkit::other_driver());
  EXPECT_EQ(used.db, testkit::sample_database());
  EXPECT_TRUE(used.overridden.empty());
  ASSERT_EQ(used.warnings.size(), 1u);
  EXPECT_TRUE(testkit::Contains(used.warnings[0], path + ": identity 0 was measured under other software: driver: "
                                                  "'580.95 (CUDA 13.0)' recorded, '590.10 (CUDA 13.1)' running"));
}

}  // namespace
}  // namespace tilewise::select
