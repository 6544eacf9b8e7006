// The report's first screen: how much faster `selected` is than cuBLASLt, per suite, orientation and dtype, with the
// alignment cliff apart, decode against bandwidth, and no temporary folder anywhere; each table also as files.
#include "report/first_screen.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/format.hpp"
#include "report/html.hpp"
#include "report/receipts.hpp"

namespace tilewise::report {
namespace {

namespace fs = std::filesystem;
using receipt::Receipt;
using testkit::element;
using testkit::HtmlContains;
using testkit::page;
using testkit::selected_run;

std::string between(const std::string& html, const std::string& from, const std::string& to) {
  const size_t a = html.find(from);
  return a == std::string::npos ? "" : html.substr(a, html.find(to, a) - a);
}

TEST(FirstScreen, TheHeadlineComesFirstWithEachRowsFiguresAndItsReceipts) {
  Receipt r = selected_run("2026-12-01T10:00:00Z");
  testkit::add_best(r, 0.95);
  const std::vector<PageReceipt> receipts = {page(r, "run.json")};
  const std::string html = render_page(receipts).html;
  EXPECT_LT(html.find(R"(<section id="headline")"), html.find(R"(<section id="rest")"));
  const std::string table = between(html, R"(<table id="table-headline-defaults")", "</table>");
  ASSERT_FALSE(table.empty());
  std::vector<std::pair<std::string, Receipt>> named = {{"run.json", r}};
  const std::vector<HeadlineRow> rows = headline(named, "selected", "cublaslt-default", "cublaslt", Grouping::by_dtype);
  ASSERT_EQ(rows.size(), 2u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string row = element(table, "tr", fmt::format("headline-defaults-{}", i));
    const HeadlineRow& f = rows[i];
    EXPECT_TRUE(HtmlContains(row, fmt::format(R"(data-arm="selected" data-receipts="../results/run.json" )"
                                              R"(data-suite="llm24" data-orientation="column-major" data-dtype="{}" )"
                                              R"(data-ldc="aligned")",
                                              f.dtype)));
    EXPECT_TRUE(HtmlContains(row, fmt::format("<b>{}x</b> <small>{}&ndash;{}</small>", speedup_text(f.vs_default),
                                              speedup_text(f.vs_default_low), speedup_text(f.vs_default_high))));
    EXPECT_TRUE(HtmlContains(row, fmt::format("<b>{}x</b> <small>{}&ndash;{}</small>", speedup_text(f.vs_best),
                                              speedup_text(f.vs_best_low), speedup_text(f.vs_best_high))));
    EXPECT_TRUE(HtmlContains(row, fmt::format(R"(<td class="num faster">{}</td>)", f.faster)));
    EXPECT_TRUE(HtmlContains(row, R"(<a href="#run">run</a>)"));
    EXPECT_TRUE(HtmlContains(row, R"(<svg class="ratio")"));
  }
}

TEST(FirstScreen, TheAlignmentCliffIsNeverTheHeadline) {
  Receipt r = selected_run("2026-12-01T10:00:00Z");
  r.results[1].problem.ldc = 20;  // dec_m16_12288 fp16
  receipt::refresh_derived(r);
  const std::string html = render_page({page(r, "run.json")}).html;
  const std::string headline = between(html, R"(<section id="headline")", "</section>");
  EXPECT_TRUE(HtmlContains(headline, R"(data-dtype="bf16")"));
  EXPECT_EQ(headline.find(R"(data-dtype="fp16")"), std::string::npos);
  EXPECT_EQ(headline.find("unaligned"), std::string::npos);
  const std::string cliff = between(html, R"(<section id="cliff")", "</section>");
  EXPECT_TRUE(HtmlContains(cliff, R"(data-dtype="fp16" data-ldc="unaligned")"));
  EXPECT_EQ(cliff.find(R"(data-dtype="bf16")"), std::string::npos);
}

TEST(FirstScreen, DecodeIsShownAgainstTheReadBandwidthOfItsReceipt) {
  const Receipt r = selected_run("2026-12-01T10:00:00Z");
  const std::string html = render_page({page(r, "run.json")}).html;
  const std::string decode = between(html, R"(<section id="decode")", "</section>");
  const receipt::ArmResult &selected = r.results[1].arms[0], &baseline = r.results[1].arms[1];
  const double read = r.machine.read_bw_gbps;
  const std::string row = element(decode, "tr", "decode-0");
  EXPECT_TRUE(HtmlContains(row, R"(<td>fp16</td>)"));
  EXPECT_TRUE(HtmlContains(row, fmt::format(">{}<", gbps_text(read))));
  for (double gbps : {*selected.gbps, *baseline.gbps})
    EXPECT_TRUE(HtmlContains(row, fmt::format("<b>{0}</b> <small>{0}&ndash;{0}</small>", percent_text(gbps / read))));
  EXPECT_EQ(element(decode, "tr", "decode-1"), "");  // sq2048 is no decode shape
}

TEST(FirstScreen, ANewerRunsRowsStandAndTheOlderOnesAreBehindADisclosure) {
  Receipt older = selected_run("2026-12-01T10:00:00Z"), newer = selected_run("2026-12-01T11:00:00Z");
  newer.notes = {"again, with another database"};
  older.results[0].problem.name = "sq2048x";  // not the same measurement: the older stands as a receipt
  newer.results[0].problem.name = "sq2048x";
  older.results.push_back(newer.results[1]);
  older.results.back().problem.name = "only_older";
  const std::string html = render_page({page(older, "older.json"), page(newer, "newer.json")}).html;
  const std::string headline = between(html, R"(<section id="headline")", "</section>");
  EXPECT_EQ(headline.find("#older"), std::string::npos);
  const std::string earlier = between(html, R"(<details id="earlier")", "</details>");
  EXPECT_TRUE(HtmlContains(earlier, R"(<a href="#older">older</a>)"));
  EXPECT_TRUE(HtmlContains(earlier, R"(<a href="#newer">newer.json</a>)"));
}

TEST(FirstScreen, SupersededReceiptsAreOnlyLinked) {
  const Receipt older = selected_run("2026-12-01T10:00:00Z"), newer = selected_run("2026-12-01T11:00:00Z");
  const std::string html = render_page({page(older, "older.json"), page(newer, "newer.json")}).html;
  const std::string list = between(html, R"(<details id="superseded")", "</details>");
  EXPECT_TRUE(HtmlContains(
      list, R"(<tr id="superseded-older" data-receipt="../results/older.json" data-by="../results/newer.json">)"));
  EXPECT_TRUE(HtmlContains(list, R"(<a href="../results/older.json">older.json</a>)"));
  EXPECT_EQ(html.find(R"(<section id="older")"), std::string::npos);
  EXPECT_NE(html.find(R"(<section id="newer")"), std::string::npos);
  EXPECT_TRUE(HtmlContains(html, R"(1 receipt, <a href="#superseded">1 superseded</a>)"));
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FirstScreen, NoTemporaryFolderAnywhereAndEveryTableAsFiles) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("tw-first-screen-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string arm = "selected:tune:round-state/fresh/database.json";
  Receipt r = selected_run("2026-12-01T10:00:00Z", arm);
  r.command += " -o /tmp/tmp.X1/run.json";
  receipt::write_file(r, (dir / "run.json").string());
  const receipt::FileVerdict verdict = receipt::check_file((dir / "run.json").string());
  ASSERT_TRUE(verdict.valid) << (verdict.problems.empty() ? "" : verdict.problems[0]);
  write_page({(dir / "run.json").string()}, (dir / "page").string());
  const std::string html = slurp(dir / "page" / "index.html");
  std::string files;
  size_t tables = 0;
  for (size_t at = html.find(R"(<table id="table-)"); at != std::string::npos;
       at = html.find(R"(<table id="table-)", at + 1), ++tables) {
    const size_t from = at + std::string(R"(<table id="table-)").size();
    const std::string name = html.substr(from, html.find('"', from) - from);
    for (const char* ext : {"csv", "md"}) {
      const fs::path file = dir / "page" / "tables" / (name + "." + ext);
      EXPECT_TRUE(fs::exists(file)) << file;
      files += slurp(file);
    }
  }
  EXPECT_GT(tables, 4u);  // headline, decode, every decode problem, receipts, results
  EXPECT_EQ(size_t(std::distance(fs::directory_iterator(dir / "page" / "tables"), fs::directory_iterator())),
            2 * tables);
  for (const std::string& text : {html, files}) {
    EXPECT_EQ(text.find("/tmp/"), std::string::npos);
    EXPECT_EQ(text.find("round-state"), std::string::npos);
  }
  EXPECT_TRUE(HtmlContains(html, "selected:tune:database.json"));
  const std::string csv = slurp(dir / "page" / "tables" / "headline-first-use.csv");
  EXPECT_TRUE(HtmlContains(csv, "suite,orientation,dtype,cases,vs cuBLASLt default (range over repeats),"));
  EXPECT_TRUE(HtmlContains(csv, "\nllm24,column-major,bf16,1,"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tilewise::report
