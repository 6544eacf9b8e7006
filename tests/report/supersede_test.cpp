// A re-run of the same measurement supersedes the older receipt; anything else measured differs.
#include "report/supersede.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/receipts.hpp"

namespace tilewise::report {
namespace {

using receipt::Receipt;
using testkit::page;

std::vector<std::optional<size_t>> of(const std::vector<std::pair<Receipt, bool>>& runs) {
  std::vector<PageReceipt> receipts;
  for (const auto& [r, valid] : runs) receipts.push_back(page(r, fmt::format("r{}.json", receipts.size()), valid));
  return superseded_by(receipts);
}

Receipt run(const std::string& created) {
  Receipt r = receipt::sample_receipt();
  r.created = created;
  return r;
}

TEST(Supersede, TheMostRecentValidRunOfTheSameMeasurementStands) {
  const auto by = of({{run("2026-12-01T10:00:00Z"), true}, {run("2026-12-01T12:00:00Z"), true},
                      {run("2026-12-01T11:00:00Z"), false}, {run("2026-12-01T13:00:00Z"), false}});
  EXPECT_EQ(by[0], 1u);
  EXPECT_EQ(by[1], std::nullopt);
  EXPECT_EQ(by[2], 1u);            // an older invalid run too
  EXPECT_EQ(by[3], std::nullopt);  // a newer invalid run supersedes nothing, and stands itself
}

TEST(Supersede, EqualTimesGoToTheLaterInTheList) {
  const auto by = of({{run("2026-12-01T10:00:00Z"), true}, {run("2026-12-01T10:00:00Z"), true}});
  EXPECT_EQ(by[0], 1u);
  EXPECT_EQ(by[1], std::nullopt);
}

TEST(Supersede, AnotherStrideArmSuiteBufferModeGpuOrToolIsAnotherMeasurement) {
  const Receipt older = run("2026-12-01T10:00:00Z");
  std::vector<Receipt> newer(7, run("2026-12-01T11:00:00Z"));
  newer[0].results[0].problem.ldc += 64;
  newer[1].protocol.arms.push_back("sm90");
  newer[2].command = "tilewise bench --suite suites/llm24.txt";
  newer[3].protocol.cold = true;
  newer[4].machine.gpu = "NVIDIA H100";
  newer[5].tool.name = "tilewise-peers";
  newer[6].results.pop_back();
  for (size_t i = 0; i < newer.size(); ++i) EXPECT_EQ(of({{older, true}, {newer[i], true}})[0], std::nullopt) << i;
  // The notes, the commit and the figures are not the measurement.
  Receipt same = run("2026-12-01T11:00:00Z");
  same.notes = {"again"};
  same.tool.commit = "abcdef0";
  *same.results[0].arms[0].us_median *= 2;
  EXPECT_EQ(of({{older, true}, {same, true}})[0], 1u);
}

}  // namespace
}  // namespace tilewise::report
