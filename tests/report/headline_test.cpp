// The headline: per suite, orientation and dtype, an arm's geomean against cuBLASLt's default (and best), the
// faster and slower counts by the claim rule, each row naming its receipt.
#include "report/headline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/sweep.hpp"
#include "expect_error.hpp"
#include "receipt/derive.hpp"
#include "receipt/sample_receipt.hpp"

namespace tilewise::report {
namespace {

using receipt::Receipt;

TEST(Headline, OneRowPerSuiteOrientationAndDtypeFromTheReceiptsOwnSamples) {
  Receipt r = receipt::sample_receipt();  // sq2048 bf16 (cublaslt faster), dec_m16_12288 fp16 (ranges overlap)
  r.results[0].suite = "square";
  r.results[1].suite = "decode-linear";
  const std::vector<HeadlineRow> rows = headline({{"results/x.json", r}}, "cublaslt", "cublaslt-default", "none");
  ASSERT_EQ(rows.size(), 2u);
  // Sorted by suite: decode-linear before square.
  EXPECT_EQ(rows[0].suite, "decode-linear");
  EXPECT_EQ(rows[0].orientation, "nn.Linear");
  EXPECT_EQ(rows[0].dtype, to_string(r.results[1].problem.dtype));
  EXPECT_EQ(rows[1].orientation, "column-major");
  for (size_t i = 0; i < 2; ++i) {
    const receipt::Result& res = r.results[1 - i];
    const receipt::ArmResult *a = nullptr, *d = nullptr;
    for (const receipt::ArmResult& arm : res.arms) (arm.arm == "cublaslt" ? a : d) = &arm;
    EXPECT_EQ(rows[i].cases, 1);
    EXPECT_NEAR(rows[i].vs_default, *d->us_median / *a->us_median, 1e-12);
    const std::string claim = receipt::compare(*a, *d).claim;
    EXPECT_EQ(rows[i].faster, claim == "faster" ? 1 : 0);
    EXPECT_EQ(rows[i].slower, claim == "slower" ? 1 : 0);
    EXPECT_EQ(rows[i].vs_best, 0);  // no arm named "none"
    EXPECT_EQ(rows[i].receipt, "results/x.json");
  }
  EXPECT_EQ(rows[1].faster, 1);  // the sample's tuned arm beats the heuristic's first choice on sq2048
  const std::string md = headline_markdown(rows, "cublaslt");
  EXPECT_NE(md.find("| square | column-major | bf16 | TN | aligned | 1 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("first-use tuning"), std::string::npos) << md;  // no arm here tuned
  EXPECT_NE(md.find("results/x.json |"), std::string::npos) << md;
}

TEST(Headline, TheSweepsLinProblemsAreNnLinearAndAnArmThatDidNotRunIsLeftOut) {
  Receipt r = receipt::sample_receipt();
  r.results[0].problem.name = "s1_0001_lin";
  r.results[1].arms[0].correct = false;  // dec_m16_12288's cublaslt arm: not a case
  const std::vector<HeadlineRow> rows = headline({{"a.json", r}}, "cublaslt", "cublaslt-default", "cublaslt");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].orientation, "nn.Linear");
  EXPECT_EQ(rows[0].vs_best, 0);  // the arm is the best arm: no figure against itself
}

TEST(Headline, AnUnalignedLdcIsItsOwnRowLabelledAsCublasltsCliffAndPoolingByOrientationKeepsItApart) {
  Receipt r = receipt::sample_receipt();
  r.results[0].suite = r.results[1].suite = "mixed";
  r.results[1].problem.name = "s1_0001_col";
  r.results[1].problem.ldc = 4099;  // not a multiple of 8
  for (receipt::ArmResult& a : r.results[1].arms)
    if (a.arm == "cublaslt") a.config = {{"first_use", {{"seconds", 0.5}}}};
  const std::vector<HeadlineRow> fine = headline({{"a.json", r}}, "cublaslt", "cublaslt-default", "none");
  ASSERT_EQ(fine.size(), 2u);
  EXPECT_TRUE(std::none_of(fine.begin(), fine.end(), [](const HeadlineRow& x) { return x.cases != 1; }));
  Receipt second = r;  // other problems of the same rows (other strides): each receipt's count in them
  for (receipt::Result& res : second.results) res.problem.lda += 8, res.problem.ldb += 8;
  const std::vector<HeadlineRow> pooled =
      headline({{"a.json", r}, {"b.json", second}}, "cublaslt", "cublaslt-default", "none", Grouping::by_orientation);
  ASSERT_EQ(pooled.size(), 2u);  // column-major aligned, column-major unaligned: the two receipts pooled
  EXPECT_TRUE(pooled[0].aligned);
  EXPECT_FALSE(pooled[1].aligned);
  EXPECT_EQ(pooled[0].cases, 2);
  EXPECT_EQ(pooled[0].dtype, "all");
  EXPECT_EQ(pooled[1].receipt, "a.json, b.json");
  EXPECT_EQ(pooled[0].tuning_max_s, 0);
  EXPECT_EQ(pooled[1].tuning_median_s, 0.5);
  const std::string md = headline_markdown(pooled, "cublaslt");
  EXPECT_NE(md.find("| not a multiple of 8 (cuBLASLt's alignment cliff) | 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find(" - | a.json, b.json |"), std::string::npos) << md;  // the aligned row did not tune
  EXPECT_NE(md.find(" 0.50, 0.50 | a.json, b.json |"), std::string::npos) << md;
}

// A copy of a receipt, or a second run of its suite, counted every case twice in a pooled row (48 cases of 24).
TEST(Headline, AProblemCountsOnceInARowFromTheMostRecentReceiptThatTimedIt) {
  const Receipt r = receipt::sample_receipt();  // sq2048 and dec_m16_12288, both column-major and aligned
  const auto pooled = [](const std::vector<std::pair<std::string, Receipt>>& receipts) {
    return headline(receipts, "cublaslt", "cublaslt-default", "cublaslt", Grouping::by_orientation);
  };
  const std::vector<HeadlineRow> once = pooled({{"a.json", r}});
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(once[0].cases, 2);
  EXPECT_EQ(once[0].repeated, 0);

  Receipt rerun = r;  // the same measurement again, its samples faster
  rerun.created = "2026-01-01T00:00:00Z";
  for (receipt::Result& res : rerun.results)
    for (receipt::ArmResult& a : res.arms)
      if (a.arm == "cublaslt")
        for (double& us : a.us) us *= 0.5;
  receipt::refresh_derived(rerun);
  const std::vector<HeadlineRow> copied = pooled({{"a.json", r}, {"a-copy.json", r}});
  ASSERT_EQ(copied.size(), 1u);
  EXPECT_EQ(copied[0].cases, 2);
  EXPECT_EQ(copied[0].repeated, 2);
  EXPECT_EQ(copied[0].receipt, "a-copy.json");  // equal times: the later in the list
  EXPECT_NEAR(copied[0].vs_default, once[0].vs_default, 1e-12);
  // The more recent run counts, wherever it is in the list; the older run's figures are not pooled with it.
  for (const auto& receipts : {std::vector<std::pair<std::string, Receipt>>{{"new.json", rerun}, {"old.json", r}},
                               std::vector<std::pair<std::string, Receipt>>{{"old.json", r}, {"new.json", rerun}}}) {
    const std::vector<HeadlineRow> rows = pooled(receipts);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].cases, 2);
    EXPECT_EQ(rows[0].receipt, "new.json");
    EXPECT_NEAR(rows[0].vs_default, pooled({{"new.json", rerun}})[0].vs_default, 1e-12);
  }
  // An overlapping run (one problem of the two, timed again later) replaces that problem alone.
  Receipt overlap = rerun;
  overlap.results.pop_back();
  const std::vector<HeadlineRow> mixed = pooled({{"old.json", r}, {"overlap.json", overlap}});
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].cases, 2);
  EXPECT_EQ(mixed[0].repeated, 1);
  EXPECT_EQ(mixed[0].receipt, "old.json, overlap.json");
  // Another case of one shape (another name: two models' layers) is a case of its own; other strides are another
  // problem.
  Receipt cases = r;
  cases.results[0].problem.name = "another_layer";
  cases.results[1].problem.lda += 8;
  const std::vector<HeadlineRow> four = pooled({{"a.json", r}, {"cases.json", cases}});
  ASSERT_EQ(four.size(), 1u);
  EXPECT_EQ(four[0].cases, 4);
  EXPECT_EQ(four[0].repeated, 0);
  // Per receipt (by suite), each receipt is its own row: nothing pooled, nothing left out.
  const std::vector<HeadlineRow> apart =
      headline({{"a.json", r}, {"a-copy.json", r}}, "cublaslt", "cublaslt-default", "cublaslt", Grouping::by_suite);
  EXPECT_EQ(apart.size(), 4u);  // two rows a receipt: bf16 and fp16
  for (const HeadlineRow& row : apart) EXPECT_EQ(row.repeated, 0);
}

TEST(Headline, RangesOverTheRepeatsPairEachSidesSlowestWithTheOthersFastest) {
  const Receipt r = receipt::sample_receipt();
  const std::vector<HeadlineRow> rows = headline({{"a.json", r}}, "cublaslt", "cublaslt-default", "cublaslt-default");
  ASSERT_EQ(rows.size(), 2u);
  const receipt::ArmResult &a = r.results[0].arms[0], &d = r.results[0].arms[1];  // sq2048 bf16
  EXPECT_NEAR(rows[0].vs_default_low, *d.us_min / *a.us_max, 1e-12);
  EXPECT_NEAR(rows[0].vs_default_high, *d.us_max / *a.us_min, 1e-12);
  EXPECT_LT(rows[0].vs_default_low, rows[0].vs_default);
  EXPECT_GT(rows[0].vs_default_high, rows[0].vs_default);
  EXPECT_EQ(rows[0].vs_best_low, rows[0].vs_default_low);  // the default given as the best: the same ratios
  EXPECT_EQ(rows[0].vs_best_high, rows[0].vs_default_high);
}

TEST(Headline, ByDtypePoolsTheReceiptsAndLayoutsOfASuiteAndOrientation) {
  Receipt tn = receipt::sample_receipt(), nn = receipt::sample_receipt();
  for (receipt::Result& res : nn.results) res.problem.layout = Layout::NN;
  for (Receipt* r : {&tn, &nn})
    for (receipt::Result& res : r->results) res.suite = "llm24";
  const std::vector<HeadlineRow> rows =
      headline({{"tn.json", tn}, {"nn.json", nn}}, "cublaslt", "cublaslt-default", "none", Grouping::by_dtype);
  ASSERT_EQ(rows.size(), 2u);  // bf16 and fp16, each over both layouts and receipts
  const std::vector<HeadlineRow> per_receipt =
      headline({{"tn.json", tn}, {"nn.json", nn}}, "cublaslt", "cublaslt-default", "none", Grouping::by_suite);
  ASSERT_EQ(per_receipt.size(), 4u);
  for (const HeadlineRow& row : rows) {
    EXPECT_EQ(row.suite, "llm24");
    EXPECT_EQ(row.layout, "all");
    EXPECT_EQ(row.cases, 2);
    EXPECT_EQ(row.receipt, "tn.json, nn.json");
    for (const HeadlineRow& one : per_receipt)
      if (one.dtype == row.dtype) EXPECT_NEAR(row.vs_default, one.vs_default, 1e-12);  // the same samples twice
  }
}

TEST(Headline, BySweepClassReadsTheClassAndTokensBackFromTheGeneratorAndLeavesOtherProblemsOut) {
  // Two problems of one sweep, given the names and sizes the generator drew: the row says their alignment class and
  // token band, which the receipt does not record.
  const std::vector<SweepProblem> drawn = sweep(20261202, 40);
  const SweepProblem *lin = nullptr, *col = nullptr;
  for (const SweepProblem& s : drawn) (s.linear ? lin : col) = &s;
  ASSERT_TRUE(lin && col);
  Receipt r = receipt::sample_receipt();
  receipt::Receipt other = receipt::sample_receipt();  // sq2048, dec_m16_12288: not sweep problems
  for (auto [res, s] : {std::pair{&r.results[0], lin}, std::pair{&r.results[1], col}}) {
    res->problem.name = s->name;
    res->problem.M = s->M, res->problem.N = s->N, res->problem.K = s->K;
  }
  const std::vector<HeadlineRow> rows = headline({{"a.json", r}, {"b.json", other}}, "cublaslt", "cublaslt-default",
                                                 "none", Grouping::by_sweep_class);
  ASSERT_EQ(rows.size(), 2u);
  int cases = 0;
  for (const HeadlineRow& row : rows) {
    const SweepProblem& s = row.orientation == "nn.Linear" ? *lin : *col;
    EXPECT_EQ(row.sweep_class, s.alignment);
    EXPECT_EQ(row.tokens, token_band(s));
    EXPECT_EQ(row.receipt, "a.json");  // b.json's problems are no sweep's
    cases += row.cases;
  }
  EXPECT_EQ(cases, 2);
  const std::string md = headline_markdown(rows, "cublaslt");
  EXPECT_NE(md.find("| tokens | orientation | alignment class | ldc |"), std::string::npos) << md;
  EXPECT_NE(md.find("|\n|---|---|---|---|---|---|---|---|---|---|\n"), std::string::npos) << md;  // ten columns
  EXPECT_NE(md.find(fmt::format("| {} | nn.Linear | {} |", token_band(*lin), lin->alignment)), std::string::npos) << md;

  // A sweep name whose sizes are not the generator's (a receipt edited, or another generator) is left out too.
  r.results[0].problem.K += 1;
  EXPECT_EQ(headline({{"a.json", r}}, "cublaslt", "cublaslt-default", "none", Grouping::by_sweep_class).size(), 1u);
}

TEST(Headline, RefusesAnArmAgainstItselfAndReceiptsFromTwoGpus) {
  const Receipt r = receipt::sample_receipt();
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { headline({{"a.json", r}}, "selected", "selected"); }),
                                "the arm and its baseline are both 'selected'"));
  Receipt h100 = r;
  h100.machine.gpu = "NVIDIA H100 80GB HBM3";
  EXPECT_TRUE(testkit::Contains(testkit::error_of([&] { headline({{"a.json", r}, {"b.json", h100}}, "cublaslt"); }),
                                "a.json was measured on NVIDIA H200 and b.json on NVIDIA H100 80GB HBM3"));
  EXPECT_EQ(headline({{"a.json", r}, {"b.json", r}}, "cublaslt").size(), 4u);  // one GPU: each receipt its two rows
}

TEST(Headline, FastestOfTakesEachProblemsFastestArmByMedianAndCountsItAgainstBothBaselines) {
  Receipt r = receipt::sample_receipt();  // sq2048: cublaslt 26.0 us against the default's 27.5 (medians)
  r.results[1].arms[0].us = {33.1, 32.9, 33.4};  // dec_m16_12288: cublaslt now slower than the default (32.2 us)
  receipt::refresh_derived(r);
  const HeadlineArm both = HeadlineArm::fastest_of({"cublaslt", "cublaslt-default"});
  const std::vector<HeadlineRow> rows = headline({{"a.json", r}}, both, "cublaslt-default", "cublaslt");
  ASSERT_EQ(rows.size(), 2u);  // bf16 (sq2048), then fp16 (dec_m16_12288)
  const receipt::Result &sq = r.results[0], &dec = r.results[1];
  EXPECT_NEAR(rows[0].vs_default, *sq.arms[1].us_median / *sq.arms[0].us_median, 1e-12);  // cublaslt chosen
  EXPECT_EQ(rows[0].faster, 1);
  EXPECT_EQ(rows[0].vs_best, 1.0);  // it chose the best arm: 1x against it, not left out
  EXPECT_EQ(rows[1].vs_default, 1.0);  // the default chosen: 1x against itself, neither faster nor slower
  EXPECT_EQ(rows[1].faster + rows[1].slower, 0);
  EXPECT_NEAR(rows[1].vs_best, *dec.arms[0].us_median / *dec.arms[1].us_median, 1e-12);
  EXPECT_GT(rows[1].vs_best, 1.0);
  // One arm stays as it was: cublaslt alone is slower on dec_m16_12288.
  EXPECT_LT(headline({{"a.json", r}}, "cublaslt", "cublaslt-default", "none")[1].vs_default, 1.0);
  const std::string md = headline_markdown(rows, both.label());
  EXPECT_NE(md.find("| fastest of cublaslt, cublaslt-default vs cuBLASLt default |"), std::string::npos) << md;
}

TEST(Headline, FastestOfRefusesFewerThanTwoArmsAnEmptyNameAndANameGivenTwice) {
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { HeadlineArm::fastest_of({"sm90"}); }), "name at least two"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { HeadlineArm::fastest_of({"sm90", ""}); }), "an empty arm name"));
  EXPECT_TRUE(testkit::Contains(testkit::error_of([] { HeadlineArm::fastest_of({"sm90", "gemv", "sm90"}); }),
                                "'sm90' given twice"));
  EXPECT_EQ(HeadlineArm::fastest_of({"sm90", "gemv"}).label(), "fastest of sm90, gemv");
  EXPECT_EQ(HeadlineArm("selected").label(), "selected");
}

TEST(Headline, TheColumnsNameTheBaselinesTheyWereGiven) {
  const Receipt r = receipt::sample_receipt();
  const std::string cublaslt = headline_markdown(headline({{"a.json", r}}, "cublaslt"), "cublaslt");
  EXPECT_NE(cublaslt.find("| cublaslt vs cuBLASLt default | cublaslt vs cuBLASLt best |"), std::string::npos) << cublaslt;
  const std::string other =
      headline_markdown(headline({{"a.json", r}}, "cublaslt-default", "cublaslt", "none"), "cublaslt-default", "cublaslt",
                        "none");
  EXPECT_NE(other.find("| cublaslt-default vs cuBLASLt best | cublaslt-default vs none |"), std::string::npos) << other;
}

}  // namespace
}  // namespace tilewise::report
