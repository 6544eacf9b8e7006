#include "report/compare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/html.hpp"


#include "report/receipts.hpp"
#include "report/svg.hpp"

namespace tilewise::report {
namespace {

using receipt::Receipt;

// The sample receipt (sq2048 bf16 TN and dec_m16_12288 fp16 TN, suite "square", arms cublaslt and
// cublaslt-default) as tilewise wrote it at `created` on `gpu`.
Receipt tilewise_run(const std::string& created, const std::string& gpu = "NVIDIA H200") {
  Receipt r = receipt::sample_receipt();
  r.created = created;
  r.machine.gpu = gpu;
  return r;
}

// The same problems as the peer runner writes them: one arm, torch.
Receipt peers_run(const std::string& created, const std::string& gpu = "NVIDIA H200") {
  Receipt r = tilewise_run(created, gpu);
  r.tool.name = "tilewise-peers";
  r.command = "bench/peers/run.py --suite suites/square.txt --dtypes bf16 --layouts TN --arms torch -o x.json";
  r.protocol.arms = {"torch"};
  r.protocol.baseline = "torch";
  for (auto& res : r.results) {
    res.arms = {res.arms[1]};
    res.arms[0].arm = "torch";
    res.comparisons.clear();
  }
  return r;
}

using testkit::page;

SideTable only_table(const std::vector<SideTable>& tables) {
  EXPECT_EQ(tables.size(), 1u);
  return tables.at(0);
}

size_t column(const SideTable& t, const std::string& arm) {
  return size_t(std::find(t.arms.begin(), t.arms.end(), arm) - t.arms.begin());
}

const SideCell& cell(const SideTable& t, size_t row, const std::string& arm) {
  const auto& c = t.rows.at(row).cells.at(column(t, arm));
  EXPECT_TRUE(c.has_value()) << t.rows.at(row).problem.name << " " << arm;
  return *c;
}

void set_median(Receipt& r, size_t result, const std::string& arm, double us) {
  for (auto& a : r.results.at(result).arms)
    if (a.arm == arm) a.us_median = us;
}

TEST(report_compare, SuitesParseFromCommands) {
  EXPECT_EQ(suites_of("build/release/tilewise bench --suite suites/llm24.txt --dtypes bf16 --cold -o r.json"),
            std::vector<std::string>{"llm24"});
  EXPECT_EQ(suites_of("tilewise bench --suite suites/a.txt suites/b.txt --cold"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(suites_of("run.py --suite suites/b.txt --only x --suite=/abs/dir/a.txt --suite suites/b.txt"),
            (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(suites_of("run.py --suite=decode.txt"), std::vector<std::string>{"decode"});
  EXPECT_TRUE(suites_of("tilewise bench --protocol protocols/decode-m1-vendor.toml -o r.json").empty());
  EXPECT_TRUE(suites_of("tilewise bench --suites-dir x --suite").empty());
  EXPECT_TRUE(suites_of("").empty());

  // As the two tools write their commands (from receipts of both).
  EXPECT_EQ(suites_of("build/release/tilewise bench --suite suites/llm24.txt --dtypes bf16,fp16,fp8 --layouts TN,NN "
                      "--cold -o /tmp/tmp.2jZfw84gnf/llm24.json --overwrite"),
            std::vector<std::string>{"llm24"});
  EXPECT_EQ(suites_of("bench/peers/run.py --suite suites/square.txt --only sq512,sq1024,sq2048,sq4096 --dtypes bf16 "
                      "--layouts TN --arms torch,triton -o /tmp/tmp.YL1sOf3IDE/peers-square-triton.json"),
            std::vector<std::string>{"square"});
  EXPECT_TRUE(suites_of("build/release/tilewise bench --protocol protocols/decode-m1-vendor.toml -o r.json").empty());
}

TEST(report_compare, CreatedTimesParse) {
  EXPECT_EQ(utc_seconds("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(utc_seconds("2026-11-30T10:33:04Z"), 1796034784);
  EXPECT_EQ(utc_seconds("2026-11-30T10:33:04.750Z"), 1796034784);
  EXPECT_EQ(utc_seconds("2000-02-29T23:59:60Z"), 951868800);  // a leap second reads as the next second's start
  for (const char* bad : {"", "yesterday", "2026-11-30 10:33:04Z", "2026-11-30T10:33:04", "2026-02-30T00:00:00Z",
                          "2026-13-01T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T10:33:04+01:00"})
    EXPECT_EQ(utc_seconds(bad), std::nullopt) << bad;
}

TEST(report_compare, ArmsTakeTheFixedOrder) {
  EXPECT_EQ(arm_order({"triton", "zeta", "cublaslt-default", "gemv:b", "torch", "alpha", "sm90", "cublaslt", "gemv:a",
                       "selected", "torch"}),
            (std::vector<std::string>{"sm90", "selected", "gemv:a", "gemv:b", "cublaslt", "cublaslt-default", "torch",
                                      "triton", "alpha", "zeta"}));
}

TEST(report_compare, JoinPicksTheMostRecentReceipt) {
  Receipt newer = tilewise_run("2026-11-30T10:35:43Z"), older = tilewise_run("2026-11-30T10:09:53Z");
  set_median(newer, 0, "cublaslt", 11);
  set_median(older, 0, "cublaslt", 22);
  Receipt torch = peers_run("2026-11-30T09:00:00Z");
  torch.results[1].problem.name = "only_torch";  // measured by one arm only: not a row
  // The newer receipt is listed first: recency, not page order, decides.
  const std::vector<PageReceipt> receipts = {page(torch, "t.json"), page(newer, "new.json"), page(older, "old.json")};
  const SideTable& t = only_table(side_by_side(receipts));
  EXPECT_EQ(t.suite, "square");
  EXPECT_EQ(t.gpu, "NVIDIA H200");
  EXPECT_EQ(t.receipts.size(), 3u);
  EXPECT_EQ(t.arms, (std::vector<std::string>{"cublaslt", "cublaslt-default", "torch"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].problem.name, "sq2048");
  EXPECT_EQ(t.rows[1].problem.name, "dec_m16_12288");  // rows by problem name as first seen, across receipts

  const SideCell& c = cell(t, 0, "cublaslt");
  EXPECT_EQ(c.shown.receipt->file, "new.json");
  EXPECT_EQ(*c.shown.arm->us_median, 11);
  ASSERT_EQ(c.older.size(), 1u);
  EXPECT_EQ(c.older[0].receipt->file, "old.json");
  EXPECT_EQ(cell(t, 0, "torch").shown.receipt->file, "t.json");
  EXPECT_TRUE(cell(t, 0, "torch").older.empty());
  EXPECT_FALSE(t.rows[1].cells[column(t, "torch")].has_value());  // torch's copy is renamed only_torch

  // Created in the same second: the one later on the page is the more recent.
  older.created = newer.created;
  const std::vector<PageReceipt> tie = {page(older, "old.json"), page(newer, "new.json")};
  EXPECT_EQ(cell(only_table(side_by_side(tie)), 0, "cublaslt").shown.receipt->file, "new.json");
  // A receipt whose `created` cannot be read counts as the oldest.
  newer.created = "sometime";
  const std::vector<PageReceipt> unreadable = {page(older, "old.json"), page(newer, "new.json")};
  EXPECT_EQ(cell(only_table(side_by_side(unreadable)), 0, "cublaslt").shown.receipt->file, "old.json");
}

TEST(report_compare, SeparatesSuitesGpusAndBufferModes) {
  Receipt h200 = tilewise_run("2026-11-30T10:00:00Z"), h100 = tilewise_run("2026-11-30T11:00:00Z", "NVIDIA H100");
  Receipt cold = tilewise_run("2026-11-30T12:00:00Z"), llm = tilewise_run("2026-11-30T13:00:00Z");
  Receipt none = tilewise_run("2026-11-30T14:00:00Z"), both = tilewise_run("2026-11-30T15:00:00Z");
  cold.protocol.cold = true;
  llm.command = "tilewise bench --suite suites/llm24.txt";
  none.command = "tilewise bench --protocol protocols/p.toml";
  both.command = "tilewise bench --suite suites/llm24.txt --suite suites/square.txt";
  const std::vector<PageReceipt> receipts = {page(h200, "h200.json"), page(h100, "h100.json"), page(cold, "cold.json"),
                                             page(llm, "llm.json"),   page(none, "none.json"), page(both, "both.json")};
  const auto tables = side_by_side(receipts);
  ASSERT_EQ(tables.size(), 5u);
  const auto files = [](const SideTable& t) {
    std::vector<std::string> out;
    for (const auto* p : t.receipts) out.push_back(p->file);
    return out;
  };
  EXPECT_EQ(std::tuple(tables[0].suite, tables[0].gpu, tables[0].cold), std::tuple("square", "NVIDIA H200", false));
  EXPECT_EQ(files(tables[0]), (std::vector<std::string>{"h200.json", "both.json"}));
  EXPECT_EQ(std::tuple(tables[1].suite, tables[1].gpu), std::tuple("square", "NVIDIA H100"));
  EXPECT_EQ(files(tables[1]), std::vector<std::string>{"h100.json"});
  EXPECT_EQ(std::tuple(tables[2].suite, tables[2].cold), std::tuple("square", true));
  EXPECT_EQ(files(tables[3]), (std::vector<std::string>{"llm.json", "both.json"}));
  EXPECT_EQ(tables[3].suite, "llm24");
  EXPECT_EQ(tables[4].suite, "other");
  EXPECT_EQ(files(tables[4]), std::vector<std::string>{"none.json"});
  // The H100 figure never stands in a column of the H200 table, though it is the most recent square run.
  EXPECT_EQ(cell(tables[0], 0, "cublaslt").shown.receipt->file, "both.json");
  EXPECT_EQ(cell(tables[0], 0, "cublaslt").older.size(), 1u);
  EXPECT_EQ(cell(tables[1], 0, "cublaslt").shown.receipt->file, "h100.json");
}

// A receipt over two suites whose results name their suites puts each row in its own suite's table only; results
// that name none (receipts written before) show in every suite the command names, as above.
TEST(report_compare, ResultsThatNameTheirSuiteShowInThatSuitesTableOnly) {
  Receipt both = tilewise_run("2026-11-30T15:00:00Z");
  both.command = "tilewise bench --suite suites/square.txt --suite suites/decode.txt";
  both.results[0].suite = "square";  // sq2048
  both.results[1].suite = "decode";  // dec_m16_12288
  Receipt square = tilewise_run("2026-11-30T10:00:00Z"), decode = tilewise_run("2026-11-30T11:00:00Z");
  decode.command = "tilewise bench --suite suites/decode.txt";
  const auto tables = side_by_side({page(square, "square.json"), page(decode, "decode.json"), page(both, "both.json")});
  ASSERT_EQ(tables.size(), 2u);
  const auto names = [](const SideTable& t) {
    std::vector<std::string> out;
    for (const SideRow& r : t.rows) out.push_back(r.problem.name);
    return out;
  };
  EXPECT_EQ(tables[0].suite, "square");
  EXPECT_EQ(names(tables[0]), (std::vector<std::string>{"sq2048", "dec_m16_12288"}));  // square.json names no suite
  EXPECT_EQ(cell(tables[0], 0, "cublaslt").shown.receipt->file, "both.json");
  EXPECT_EQ(cell(tables[0], 1, "cublaslt").shown.receipt->file, "square.json");  // both.json's row is decode's
  EXPECT_EQ(tables[1].suite, "decode");
  EXPECT_EQ(cell(tables[1], 1, "cublaslt").shown.receipt->file, "both.json");
  EXPECT_EQ(cell(tables[1], 0, "cublaslt").shown.receipt->file, "decode.json");  // sq2048 is square's
}

TEST(report_compare, IncorrectFailedAndInvalidEntriesStayInTheJoin) {
  Receipt r = tilewise_run("2026-11-30T10:00:00Z"), bad = tilewise_run("2026-11-30T11:00:00Z");
  r.results[0].arms[0].correct = false;
  r.results[1].arms[1].error = "CUBLAS_STATUS_NOT_SUPPORTED";
  const std::vector<PageReceipt> receipts = {page(r, "r.json"), page(bad, "bad.json", false)};
  const SideTable& t = only_table(side_by_side(receipts));
  ASSERT_EQ(t.rows.size(), 2u);
  // The invalid receipt is the more recent, so it is the one shown (the page strikes it through).
  EXPECT_EQ(cell(t, 0, "cublaslt").shown.receipt->file, "bad.json");
  EXPECT_FALSE(cell(t, 0, "cublaslt").shown.receipt->verdict.valid);
  const std::vector<PageReceipt> alone = {page(r, "r.json")};
  const SideTable& u = only_table(side_by_side(alone));
  EXPECT_FALSE(cell(u, 0, "cublaslt").shown.arm->correct);
  EXPECT_EQ(cell(u, 1, "cublaslt-default").shown.arm->error, "CUBLAS_STATUS_NOT_SUPPORTED");
}

TEST(report_compare, CrossCheckRatioAndFlagAreExact) {
  // Six problems, cublaslt-default median and torch median chosen at and around the edges of the flag.
  const std::vector<std::tuple<double, double, bool>> cases = {
      {100, 95, false}, {100, 94.9, true}, {100, 105, false}, {100, 105.1, true}, {50, 40, true}, {49.99, 10, false}};
  Receipt vendor = tilewise_run("2026-11-30T10:00:00Z"), torch = peers_run("2026-11-30T10:05:00Z");
  vendor.results.assign(cases.size(), receipt::Result(vendor.results[0]));
  torch.results.assign(cases.size(), receipt::Result(torch.results[0]));
  for (size_t i = 0; i < cases.size(); ++i) {
    vendor.results[i].problem.name = torch.results[i].problem.name = fmt::format("p{}", i);
    set_median(vendor, i, "cublaslt-default", std::get<0>(cases[i]));
    set_median(torch, i, "torch", std::get<1>(cases[i]));
  }
  const std::vector<PageReceipt> receipts = {page(torch, "t.json"), page(vendor, "v.json")};
  const CrossChecks checks = cross_check(receipts);
  ASSERT_EQ(checks.gpus.size(), 1u);
  const CrossCheck& c = checks.gpus[0];
  ASSERT_EQ(c.rows.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [vendor_us, torch_us, flagged] = cases[i];
    SCOPED_TRACE(c.rows[i].problem.name);
    EXPECT_EQ(c.rows[i].problem.name, fmt::format("p{}", i));
    EXPECT_EQ(c.rows[i].ratio, torch_us / vendor_us);
    EXPECT_EQ(c.rows[i].flagged, flagged);
    EXPECT_EQ(c.rows[i].long_kernel, vendor_us >= 50);
    EXPECT_EQ(c.rows[i].torch.receipt->file, "t.json");
    EXPECT_EQ(c.rows[i].vendor.arm->arm, "cublaslt-default");
  }
  EXPECT_EQ(c.rows[0].ratio, 0.95);  // at the edge, within
  for (const CrossRow& row : c.rows) EXPECT_EQ(row.cycle_ratio, row.ratio);  // both arms at the same sample clock
  EXPECT_EQ(std::tuple(c.long_kernels, c.within, c.outside), std::tuple(5, 2, 3));
}

TEST(report_compare, CrossCheckWeighsEachMedianByItsClockInSmCycles) {
  // sq2048: 6% slower at a clock 5.7% lower, the same kernel in cycles; dec_m16_12288: no clock on the torch arm.
  Receipt vendor = tilewise_run("2026-11-30T10:00:00Z"), torch = peers_run("2026-11-30T10:05:00Z");
  set_median(vendor, 0, "cublaslt-default", 200);
  set_median(torch, 0, "torch", 212);
  vendor.results[0].arms[1].clock.sm_mhz_median = 1500;
  torch.results[0].arms[0].clock.sm_mhz_median = 1415;
  set_median(vendor, 1, "cublaslt-default", 100);
  set_median(torch, 1, "torch", 120);
  torch.results[1].arms[0].clock.sm_mhz_median = 0;
  const CrossCheck c = cross_check({page(torch, "t.json"), page(vendor, "v.json")}).gpus.at(0);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_TRUE(c.rows[0].flagged);
  ASSERT_TRUE(c.rows[0].cycle_ratio);
  EXPECT_DOUBLE_EQ(*c.rows[0].cycle_ratio, 212.0 * 1415 / (200.0 * 1500));
  EXPECT_TRUE(c.rows[1].flagged);
  EXPECT_FALSE(c.rows[1].cycle_ratio);
  EXPECT_EQ(std::tuple(c.outside, c.outside_within_in_cycles), std::tuple(2, 1));
  const std::string row = testkit::element(render_page({page(torch, "t.json"), page(vendor, "v.json")}).html, "tr",
                                  "xc0-dec_m16_12288-fp16-TN-warm");
  EXPECT_TRUE(testkit::HtmlContains(row, R"(<td class="muted">no clock</td>)"));
}

TEST(report_compare, CrossCheckPairsTheReceiptsClosestInTime) {
  // Closest: the older peers run and the older tilewise run, 5 minutes apart; the newest of each is an hour apart.
  Receipt t_old = peers_run("2026-11-30T10:00:00Z"), t_new = peers_run("2026-11-30T12:00:00Z");
  Receipt v_old = tilewise_run("2026-11-30T10:05:00Z"), v_new = tilewise_run("2026-11-30T11:00:00Z");
  Receipt other_gpu = peers_run("2026-11-30T10:05:00Z", "NVIDIA H100");  // as close as can be, wrong GPU
  Receipt cold = peers_run("2026-11-30T10:05:00Z");                      // same GPU, but cold buffers
  cold.protocol.cold = true;
  const std::vector<PageReceipt> receipts = {page(t_new, "t_new.json"),    page(v_new, "v_new.json"),
                                             page(t_old, "t_old.json"),    page(v_old, "v_old.json"),
                                             page(other_gpu, "h100.json"), page(cold, "cold.json")};
  const CrossChecks checks = cross_check(receipts);
  ASSERT_EQ(checks.gpus.size(), 1u);  // the H100 torch run has no cublaslt-default partner on its GPU
  EXPECT_EQ(checks.gpus[0].gpu, "NVIDIA H200");
  ASSERT_EQ(checks.gpus[0].rows.size(), 2u);
  for (const CrossRow& row : checks.gpus[0].rows) {
    EXPECT_EQ(row.torch.receipt->file, "t_old.json");
    EXPECT_EQ(row.vendor.receipt->file, "v_old.json");
  }
  EXPECT_TRUE(checks.left_out.empty());
}

TEST(report_compare, CrossCheckTakesOnlyCorrectArmsOfValidReceipts) {
  Receipt torch = peers_run("2026-11-30T10:00:00Z"), vendor = tilewise_run("2026-11-30T10:05:00Z");
  Receipt invalid_vendor = tilewise_run("2026-11-30T10:00:00Z");  // closer, but the checker rejects it
  torch.results[1].arms[0].correct = false;                       // dec_m16_12288: torch incorrect
  Receipt tilewise_torch = peers_run("2026-11-30T10:00:00Z");     // a "torch" arm, but not from the peer runner
  tilewise_torch.tool.name = "tilewise";
  const std::vector<PageReceipt> receipts = {page(torch, "t.json"), page(vendor, "v.json"),
                                             page(invalid_vendor, "bad.json", false), page(tilewise_torch, "tw.json")};
  const CrossChecks checks = cross_check(receipts);
  ASSERT_EQ(checks.gpus.size(), 1u);
  ASSERT_EQ(checks.gpus[0].rows.size(), 1u);
  EXPECT_EQ(checks.gpus[0].rows[0].problem.name, "sq2048");
  EXPECT_EQ(checks.gpus[0].rows[0].vendor.receipt->file, "v.json");
  EXPECT_EQ(checks.gpus[0].rows[0].torch.receipt->file, "t.json");
  ASSERT_EQ(checks.left_out.size(), 1u);
  EXPECT_EQ(checks.left_out[0]->file, "bad.json");
}

// --- the two sections as the page renders them ---

using testkit::element;
using testkit::HtmlContains;

std::string us(double v) { return fmt::format("{:.2f}", v); }
std::string tflops(double v) { return fmt::format("{:.1f}", v); }

TEST(report_compare, PageShowsBothSectionsBetweenTheOverviewAndTheReceipts) {
  const std::vector<PageReceipt> receipts = {page(peers_run("2026-11-30T10:00:00Z"), "t.json"),
                                             page(tilewise_run("2026-11-30T10:05:00Z"), "v.json")};
  const std::string html = render_page(receipts).html;
  const size_t overview = html.find(R"(<table id="table-receipts" class="overview")"), side = html.find(R"(<section id="side-by-side")"),
               cross = html.find(R"(<section id="cross-check")"),
               first = html.find(R"(<section id="t" class="receipt")");
  ASSERT_NE(overview, std::string::npos);
  EXPECT_LT(overview, side);
  EXPECT_LT(side, cross);
  EXPECT_LT(cross, first);
  EXPECT_NE(first, std::string::npos);
}

TEST(report_compare, SideBySideCellsLinkTheirFiguresAndNameTheOthers) {
  Receipt newer = tilewise_run("2026-11-30T10:35:43Z"), older = tilewise_run("2026-11-30T10:09:53Z");
  Receipt torch = peers_run("2026-11-30T10:00:00Z");
  torch.results[1].arms[0].correct = false;
  older.results[1].arms[0].error = "CUBLAS_STATUS_NOT_SUPPORTED";
  older.results.push_back(older.results[0]);  // a problem the newer run left out: it does not supersede the older
  older.results.back().problem.name = "sq2048b";
  const std::vector<PageReceipt> receipts = {page(torch, "t.json"), page(older, "old.json"), page(newer, "new.json")};
  const std::string html = render_page(receipts).html;
  const auto& a = newer.results[0].arms[0];
  const std::string c = element(html, "td", "sbs-square-sq2048-bf16-TN-cublaslt");
  EXPECT_TRUE(HtmlContains(c, fmt::format(R"(<a href="#new-r0-cublaslt">{}</a>)", us(*a.us_median))));
  EXPECT_TRUE(HtmlContains(c, tflops(*a.tflops) + " TFLOP/s"));
  EXPECT_TRUE(HtmlContains(c, R"(<a href="../results/new.json" title="new.json results[0]">new</a> [0])"));
  EXPECT_TRUE(HtmlContains(c, "newest of 2"));
  EXPECT_TRUE(HtmlContains(c,
                       "the most recent of 2 receipts that ran this arm on this problem; the others: old.json "
                       "results[0] (created 2026-11-30T10:09:53Z)"));
  EXPECT_EQ(c.find("<s>"), std::string::npos);
  EXPECT_TRUE(HtmlContains(element(html, "td", "sbs-square-sq2048-bf16-TN-torch"), R"(href="#t-r0-torch")"));
  EXPECT_TRUE(HtmlContains(element(html, "td", "sbs-square-dec_m16_12288-fp16-TN-torch"), ">incorrect</a>"));
  // The newer receipt ran cublaslt on the decode shape; the older one's failure is only named in the tooltip.
  EXPECT_TRUE(HtmlContains(element(html, "td", "sbs-square-dec_m16_12288-fp16-TN-cublaslt"), R"(href="#new-r1-cublaslt")"));
  const std::string side = element(html, "section", "side-by-side");  // the columns in the fixed order
  EXPECT_LT(side.find("<th>cublaslt<br>"), side.find("<th>cublaslt-default<br>"));
  EXPECT_LT(side.find("<th>cublaslt-default<br>"), side.find("<th>torch<br>"));
  EXPECT_NE(side.find("<th>torch<br>"), std::string::npos);
}

TEST(report_compare, FailedArmShowsAsSuch) {
  Receipt r = tilewise_run("2026-11-30T10:09:53Z");
  r.results[1].arms[0].error = "CUBLAS_STATUS_NOT_SUPPORTED";
  const std::vector<PageReceipt> receipts = {page(r, "r.json")};
  const std::string c = element(render_page(receipts).html, "td", "sbs-square-dec_m16_12288-fp16-TN-cublaslt");
  EXPECT_TRUE(HtmlContains(c, R"(<td id="sbs-square-dec_m16_12288-fp16-TN-cublaslt" class="num fail")"));
  EXPECT_TRUE(HtmlContains(c, R"(<a href="#r-r1-cublaslt">did not run</a>)"));
}

TEST(report_compare, InvalidReceiptsFiguresAreStruckThrough) {
  Receipt valid = tilewise_run("2026-11-30T10:00:00Z"), invalid = tilewise_run("2026-11-30T11:00:00Z");
  const std::vector<PageReceipt> receipts = {page(valid, "ok.json"), page(invalid, "bad.json", false)};
  const std::string html = render_page(receipts).html;
  const std::string c = element(html, "td", "sbs-square-sq2048-bf16-TN-cublaslt");
  EXPECT_TRUE(
      HtmlContains(c, fmt::format(R"(<s><a href="#bad-r0-cublaslt">{}</a>)", us(*invalid.results[0].arms[0].us_median))));
  EXPECT_TRUE(HtmlContains(c, R"(</s><br><small class="invalid-cell">INVALID receipt</small>)"));
  EXPECT_TRUE(HtmlContains(c, R"(title="The receipt bad.json is INVALID: these figures are not results. )"));
  EXPECT_TRUE(HtmlContains(c, "ok.json results[0] (created 2026-11-30T10:00:00Z)"));                // the valid one, named
  EXPECT_TRUE(HtmlContains(html, R"(<a href="#bad">bad.json</a> <b class="slower">INVALID</b>)"));  // in the caption
}

TEST(report_compare, CrossCheckRowsCarryRatioClocksReceiptsAndFlag) {
  Receipt vendor = tilewise_run("2026-11-30T10:35:43Z"), torch = peers_run("2026-11-30T10:33:53Z");
  set_median(vendor, 0, "cublaslt-default", 200);
  set_median(torch, 0, "torch", 180);  // 0.900: a long kernel outside 5%
  set_median(vendor, 1, "cublaslt-default", 40);
  set_median(torch, 1, "torch", 30);  // 0.750, but short
  Receipt bad = tilewise_run("2026-11-30T10:34:00Z");
  bad.results.pop_back();  // not the same measurement as v.json, which would supersede it
  const std::vector<PageReceipt> receipts = {page(torch, "t.json"), page(vendor, "v.json"),
                                             page(bad, "bad.json", false)};
  const std::string html = render_page(receipts).html;
  const std::string section = element(html, "section", "cross-check");
  EXPECT_TRUE(HtmlContains(section,
                       "On NVIDIA H200: 2 problems paired; <b>1</b> long kernel (cublaslt-default median "
                       "&ge; 50 &micro;s) compared, <b>0</b> within 5% (ratio in [0.95, 1.05]), "
                       R"(<b class="slower">1</b> outside, of which 0 within 5% in SM cycles.)"));
  EXPECT_TRUE(HtmlContains(section, R"(Left out, as the checker finds them INVALID: <a href="#bad">bad.json</a>)"));

  const std::string row = element(html, "tr", "xc0-sq2048-bf16-TN-warm");
  EXPECT_TRUE(HtmlContains(row, R"(<tr id="xc0-sq2048-bf16-TN-warm" class="flagged">)"));
  EXPECT_TRUE(HtmlContains(row, R"(<a href="#t-r0-torch">180.00</a>)"));
  EXPECT_TRUE(HtmlContains(row, R"(<a href="#v-r0-cublaslt-default">200.00</a>)"));
  EXPECT_TRUE(HtmlContains(row, ">0.900<"));
  EXPECT_TRUE(
      HtmlContains(row, fmt::format(R"(<a href="#t-r0-torch">{}</a>)", torch.results[0].arms[0].clock.sm_mhz_median)));
  EXPECT_TRUE(HtmlContains(
      row, fmt::format(R"(<a href="#v-r0-cublaslt-default">{}</a>)", vendor.results[0].arms[1].clock.sm_mhz_median)));
  EXPECT_TRUE(
      HtmlContains(row, R"(<a href="../results/t.json" title="t.json results[0]">t</a> [0]<br><small>2026-11-30T10:33:53Z)"));
  EXPECT_TRUE(
      HtmlContains(row, R"(<a href="../results/v.json" title="v.json results[0]">v</a> [0]<br><small>2026-11-30T10:35:43Z)"));
  EXPECT_TRUE(HtmlContains(row, "outside &plusmn;5%"));

  const std::string short_row = element(html, "tr", "xc0-dec_m16_12288-fp16-TN-warm");
  EXPECT_TRUE(HtmlContains(short_row, ">0.750<"));
  EXPECT_TRUE(HtmlContains(short_row, ">short<"));
  EXPECT_EQ(short_row.find("flagged"), std::string::npos);
}

TEST(report_compare, SuiteNamesAreEscaped) {
  Receipt r = tilewise_run("2026-11-30T10:00:00Z");
  r.command = "tilewise bench --suite suites/<b>odd&.txt";
  const std::vector<PageReceipt> receipts = {page(r, "r.json")};
  const std::string html = render_page(receipts).html;
  EXPECT_EQ(html.find("<b>odd"), std::string::npos);
  EXPECT_TRUE(HtmlContains(html, R"(<h3 id="sbs-_b_odd_">&lt;b&gt;odd&amp; <small>)"));
  EXPECT_TRUE(HtmlContains(html, R"(<td id="sbs-_b_odd_-sq2048-bf16-TN-cublaslt")"));
}

}  // namespace
}  // namespace tilewise::report
