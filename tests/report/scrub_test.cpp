// The GPU machine's temporary folders leave the page: a path under one reads as its file name.
#include "report/scrub.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "receipt/sample_receipt.hpp"

namespace tilewise::report {
namespace {

TEST(Scrub, TemporaryPathsReadAsTheirFileName) {
  EXPECT_EQ(without_temporary_folders("selected:tune:round-state/fresh/database.json"), "selected:tune:database.json");
  EXPECT_EQ(without_temporary_folders("--arms selected:/tmp/tmp.XjwYs9xlwU/llm24-db.json,cublaslt-default"),
            "--arms selected:llm24-db.json,cublaslt-default");
  EXPECT_EQ(without_temporary_folders("bench -o /tmp/tmp.2jZfw84gnf/llm24.json --overwrite"),
            "bench -o llm24.json --overwrite");
  EXPECT_EQ(without_temporary_folders("TILEWISE_DB=/tmp/tmp.Y/ x"), "TILEWISE_DB=tmp.Y x");
  EXPECT_EQ(without_temporary_folders("cache at ./round-state/ship/db.json)"), "cache at db.json)");
  // Paths a reader can open, and look-alikes, stay.
  for (const char* kept : {"selected:results/tune/llm24-db.json", "build/carry/tilewise bench", "/tmpfoo/x.json",
                           "my-round-state/x", "", "plain words; and, marks"})
    EXPECT_EQ(without_temporary_folders(kept), kept);
}

TEST(Scrub, EveryStringOfTheReceiptAndNoFigure) {
  receipt::Receipt r = receipt::sample_receipt();
  const std::string arm = "selected:tune:round-state/fresh/database.json";
  r.protocol.arms[0] = arm;
  for (auto& res : r.results) res.arms[0].arm = arm;
  r.results[0].arms[0].config = {{"database", "/tmp/tmp.X/llm24-db.json"}, {"first_use", {{"seconds", 0.5}}}};
  r.command = "tilewise bench --arms " + arm + " -o /tmp/tmp.X/out.json";
  r.notes = {"database at /tmp/tmp.X/llm24-db.json"};
  receipt::refresh_derived(r);
  receipt::Receipt scrubbed = r;
  drop_temporary_folders(scrubbed, "x.json");
  const std::string text = nlohmann::json(scrubbed).dump();
  EXPECT_EQ(text.find("/tmp/"), std::string::npos) << text;
  EXPECT_EQ(text.find("round-state"), std::string::npos) << text;
  EXPECT_EQ(scrubbed.protocol.arms[0], "selected:tune:database.json");
  EXPECT_EQ(scrubbed.results[1].comparisons[0].arm, "selected:tune:database.json");
  EXPECT_EQ(scrubbed.results[0].arms[0].config["database"], "llm24-db.json");
  EXPECT_EQ(scrubbed.command, "tilewise bench --arms selected:tune:database.json -o out.json");
  EXPECT_EQ(scrubbed.results[0].arms[0].us_median, r.results[0].arms[0].us_median);
  EXPECT_EQ(scrubbed.results[0].arms[0].config["first_use"]["seconds"], 0.5);
}

TEST(Scrub, ArmsThatWouldReadTheSameAreRefused) {
  receipt::Receipt r = receipt::sample_receipt();
  r.protocol.arms = {"selected:/tmp/a/db.json", "selected:/tmp/b/db.json"};
  try {
    drop_temporary_folders(r, "results/two.json");
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results/two.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilewise::report
