// The first screen's rows: `selected` in the library's two modes, each problem from its most recent valid receipt,
// every figure headline()'s.
#include "report/current.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/receipts.hpp"

namespace tilewise::report {
namespace {

using receipt::Receipt;
using testkit::page;
using testkit::selected_run;

std::vector<HeadlineRow> headline_of(const std::vector<const PageReceipt*>& receipts, const char* arm) {
  std::vector<std::pair<std::string, Receipt>> named;
  for (const PageReceipt* p : receipts) named.emplace_back(p->file, p->receipt);
  return headline(named, arm, "cublaslt-default", "cublaslt", Grouping::by_dtype);
}

void expect_same_figures(const HeadlineRow& a, const HeadlineRow& b) {
  EXPECT_EQ(a.receipt, b.receipt);
  EXPECT_EQ(std::tie(a.suite, a.orientation, a.dtype, a.aligned, a.cases, a.faster, a.slower),
            std::tie(b.suite, b.orientation, b.dtype, b.aligned, b.cases, b.faster, b.slower));
  EXPECT_EQ(std::tie(a.vs_default, a.vs_default_low, a.vs_default_high, a.vs_best, a.vs_best_low, a.vs_best_high),
            std::tie(b.vs_default, b.vs_default_low, b.vs_default_high, b.vs_best, b.vs_best_low, b.vs_best_high));
}

TEST(Current, OnlyValidCurrentColdRunsOfTheLibrarysTwoModesTakePart) {
  std::vector<Receipt> runs(9, selected_run("2026-12-01T10:00:00Z"));
  runs[1] = selected_run("2026-12-01T10:00:00Z", "selected:tune:database.json");
  runs[2].protocol.cold = false;
  runs[3] = selected_run("2026-12-01T10:00:00Z", "selected:results/tune/llm24-db.json");  // a named database
  runs[4] = selected_run("2026-12-01T10:00:00Z", "selected:floor");
  runs[5].protocol.arms.push_back("selected:floor");  // which of two selected arms would the row be?
  runs[6].protocol.arms = {"selected", "cublaslt"};   // no default to stand against
  runs[7].tool.name = "tilewise-peers";
  std::vector<PageReceipt> receipts;
  for (const Receipt& r : runs) receipts.push_back(page(r, fmt::format("r{}.json", receipts.size())));
  receipts[8].verdict.valid = false;
  std::vector<bool> superseded(receipts.size());
  const std::vector<Eligible> e = eligible_receipts(receipts, superseded);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].receipt, &receipts[0]);
  EXPECT_EQ(e[0].mode, Mode::defaults);
  EXPECT_EQ(e[1].receipt, &receipts[1]);
  EXPECT_EQ(e[1].mode, Mode::first_use);
  superseded[0] = true;
  EXPECT_EQ(eligible_receipts(receipts, superseded).size(), 1u);
}

TEST(Current, ARowIsTheHeadlinesPerSuiteOrientationAndDtype) {
  Receipt r = selected_run("2026-12-01T10:00:00Z");
  testkit::add_best(r, 0.9);
  const PageReceipt p = page(r, "r.json");
  const CurrentHeadline h = current_headline({{&p, Mode::defaults}});
  const std::vector<HeadlineRow> expected = headline_of({&p}, "selected");
  ASSERT_EQ(h.rows.size(), 2u);  // sq2048 bf16 and dec_m16_12288 fp16
  ASSERT_EQ(expected.size(), 2u);
  for (size_t i = 0; i < 2; ++i) expect_same_figures(h.rows[i].figures, expected[i]);
  EXPECT_GT(h.rows[0].figures.vs_best, 0);
  EXPECT_LE(h.rows[0].figures.vs_default_low, h.rows[0].figures.vs_default);
  EXPECT_GE(h.rows[0].figures.vs_default_high, h.rows[0].figures.vs_default);
  EXPECT_TRUE(h.earlier.empty());
}

TEST(Current, ANewerRunOfTheSameProblemsReplacesTheRowAndDisjointRunsPool) {
  Receipt older = selected_run("2026-12-01T10:00:00Z"), newer = selected_run("2026-12-01T11:00:00Z");
  *newer.results[0].arms[0].us_median *= 0.5;
  Receipt other = selected_run("2026-12-01T09:00:00Z");  // other problems of the suite, measured before both
  for (auto& res : other.results) res.problem.name += "_b";
  const PageReceipt a = page(older, "older.json"), b = page(newer, "newer.json"), c = page(other, "other.json");
  const CurrentHeadline h = current_headline({{&a, Mode::defaults}, {&b, Mode::defaults}, {&c, Mode::defaults}});
  ASSERT_EQ(h.rows.size(), 2u);
  const std::vector<HeadlineRow> expected = headline_of({&b, &c}, "selected");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(h.rows[i].receipts, (std::vector<const PageReceipt*>{&b, &c}));
    expect_same_figures(h.rows[i].figures, expected[i]);
    EXPECT_EQ(h.rows[i].figures.cases, 2);
  }
  ASSERT_EQ(h.earlier.size(), 2u);
  for (const CurrentRow& r : h.earlier) {
    EXPECT_EQ(r.receipts, std::vector<const PageReceipt*>{&a});
    EXPECT_EQ(r.replaced_by, &b);
  }
}

TEST(Current, TheModesAndTheAlignmentCliffAreRowsApart) {
  Receipt defaults = selected_run("2026-12-01T10:00:00Z");
  defaults.results[1].problem.ldc = 20;  // dec_m16_12288: M = 16, ldc not a multiple of 8
  receipt::refresh_derived(defaults);
  const Receipt tuned = selected_run("2026-12-01T11:00:00Z", "selected:tune:database.json");
  const PageReceipt a = page(defaults, "a.json"), b = page(tuned, "b.json");
  const CurrentHeadline h = current_headline({{&a, Mode::defaults}, {&b, Mode::first_use}});
  ASSERT_EQ(h.rows.size(), 4u);
  EXPECT_EQ(h.rows[0].mode, Mode::defaults);
  EXPECT_TRUE(h.rows[0].figures.aligned);
  EXPECT_EQ(h.rows[1].mode, Mode::defaults);
  EXPECT_FALSE(h.rows[1].figures.aligned);
  EXPECT_EQ(h.rows[2].mode, Mode::first_use);
  EXPECT_TRUE(h.earlier.empty());  // the tuned run measured the same problems, in another mode
  for (const CurrentRow& r : h.rows) EXPECT_EQ(r.figures.cases, 1);
}

TEST(Current, DecodeIsAHandfulOfTokensInEitherOrientation) {
  receipt::Result r;
  r.problem = make_problem("d", 16, 4096, 4096, DType::bf16, Layout::TN);
  EXPECT_TRUE(is_decode(r));
  r.suite = "decode-linear";  // nn.Linear: 16 features, 4096 tokens
  EXPECT_FALSE(is_decode(r));
  r.problem = make_problem("d", 4096, 8, 4096, DType::bf16, Layout::TN);
  EXPECT_TRUE(is_decode(r));
}

}  // namespace
}  // namespace tilewise::report
