#include "report/page.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/html.hpp"
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.hpp"
#include "core/gzip.hpp"
#include "receipt/sample_receipt.hpp"
#include "report/svg.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {
namespace {

namespace fs = std::filesystem;
using receipt::Receipt;

// The page's formats, written out here again so that a change on the page is a change the tests notice.
std::string us(double v) { return fmt::format("{:.2f}", v); }
std::string tflops(double v) { return fmt::format("{:.1f}", v); }
std::string gbps(double v) { return fmt::format("{:.0f}", v); }
std::string speedup(double v) { return fmt::format("{:.3f}", v); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using testkit::element;
using testkit::HtmlContains;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no Error thrown)";
}

// Each arm's median, TFLOP/s, GB/s and speedup appear in that arm's own row, and the row links to its source.
void expect_every_arm_figure(const std::string& html, const Receipt& r, const std::string& stem) {
  for (size_t i = 0; i < r.results.size(); ++i) {
    const auto& res = r.results[i];
    const std::string result = element(html, "tbody", fmt::format("{}-r{}", stem, i));
    EXPECT_TRUE(HtmlContains(result, fmt::format(R"(href="{}.json")", stem)));  // beside the page, as tests put it
    EXPECT_TRUE(HtmlContains(result, fmt::format("results[{}]", i)));
    for (const auto& a : res.arms) {
      const std::string row = element(html, "tr", fmt::format("{}-r{}-{}", stem, i, a.arm));
      ASSERT_FALSE(row.empty()) << "no row for " << res.problem.name << " " << a.arm;
      if (!a.us_median) continue;
      EXPECT_TRUE(HtmlContains(row, ">" + us(*a.us_median) + "<"));
      EXPECT_TRUE(HtmlContains(row, ">" + tflops(*a.tflops) + "<"));
      EXPECT_TRUE(HtmlContains(row, ">" + gbps(*a.gbps) + "<"));
      EXPECT_TRUE(HtmlContains(row, escape(a.config_text)));
    }
    for (const auto& c : res.comparisons) {
      const std::string row = element(html, "tr", fmt::format("{}-r{}-{}", stem, i, c.arm));
      EXPECT_TRUE(HtmlContains(row, ">" + speedup(c.speedup)));
      EXPECT_TRUE(HtmlContains(row, c.claim == "faster" ? "faster" : c.claim == "slower" ? "slower" : "ranges overlap"));
    }
  }
}

// Named in lower case so that `ctest -R report` selects it with the browser check.
class report_page : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("tw-page-{}-{}", getpid(), testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string save(const Receipt& r, const std::string& name) {
    const std::string path = (dir_ / name).string();
    receipt::write_file(r, path);
    return path;
  }
  // The page as written into the test's folder, where the receipts it renders are saved.
  std::string render(const std::vector<std::string>& paths) const {
    return render_page(load_receipts(paths, dir_.string())).html;
  }

  fs::path dir_;
};

TEST_F(report_page, ShowsEveryArmsFiguresInItsRow) {
  const Receipt r = receipt::sample_receipt();
  const std::string html = render({save(r, "sample.json")});
  expect_every_arm_figure(html, r, "sample");
  EXPECT_TRUE(HtmlContains(html, R"(<section id="sample" class="receipt">)"));
  EXPECT_TRUE(HtmlContains(html, "Valid:"));
  EXPECT_EQ(html.find("INVALID"), std::string::npos);
}

// A receipt's file name is a link's target: '#', '?' and a space would end or break the path, so they are %XX.
TEST_F(report_page, LinksToAReceiptWhateverItsFileIsNamed) {
  const std::string html = render({save(receipt::sample_receipt(), "run #2?.json")});
  EXPECT_TRUE(HtmlContains(html, R"(href="run%20%232%3F.json")"));
  EXPECT_EQ(html.find(R"(href="run #2?.json")"), std::string::npos);
}

// A committed receipt compressed (x.json.gz) keeps its name on the page and so every anchor: only its link changes.
TEST_F(report_page, ACompressedReceiptIsNamedAsItsPlainFile) {
  const std::string plain = save(receipt::sample_receipt(), "sample.json");
  const std::string html = render({plain});
  std::ofstream(plain + ".gz", std::ios::binary) << gzip(slurp(plain));
  fs::remove(plain);
  std::string compressed = render({plain + ".gz"});
  const std::string link = R"(href="sample.json.gz")";
  ASSERT_TRUE(HtmlContains(compressed, link));
  for (size_t at; (at = compressed.find(link)) != std::string::npos;)
    compressed.replace(at, link.size(), R"(href="sample.json")");
  EXPECT_TRUE(compressed == html) << "the pages differ in more than the receipt's links";
}

TEST_F(report_page, ShowsTheMachineAndProtocol) {
  const Receipt r = receipt::sample_receipt();
  const std::string html = render({save(r, "sample.json")});
  for (const std::string& part :
       {std::string("NVIDIA H200"), std::string("<dd>132</dd>"), std::string("50 MiB"), std::string("median 1700 MHz"),
        std::string("sw_power_cap"), std::string("570.124.06"), std::string("12.8.4"), std::string("8459607"),
        std::string("<dd>clean</dd>"), std::string("10.50 s"),
        fmt::format("<b>{} GB/s</b>", gbps(r.machine.read_bw_gbps)), std::string("sq16384"),
        std::string("skipped by --max-size")})
    EXPECT_TRUE(HtmlContains(html, part));
}

// The kernel sources a run compiled: not recorded in older receipts; a folder that stood in for the tool's own is
// flagged, since the figures then come from sources the commit does not hold.
TEST_F(report_page, NamesTheKernelSourcesAndFlagsAnOverride) {
  Receipt r = receipt::sample_receipt();
  EXPECT_TRUE(HtmlContains(render({save(r, "old.json")}), "<dd>not recorded</dd>"));
  r.tool.kernel_sources = "00112233445566778899aabbccddeeff";
  std::string html = render({save(r, "embedded.json")});
  EXPECT_TRUE(HtmlContains(html, "<code>00112233445566778899aabbccddeeff</code> (built into the tool)"));
  r.tool.kernel_sources_dir = "/srv/kernels <variant>";
  html = render({save(r, "override.json")});
  EXPECT_TRUE(HtmlContains(html, "from /srv/kernels &lt;variant&gt;</b> (TILEWISE_KERNELS_DIR, not the commit's)"));
}

TEST_F(report_page, MatrixReceiptGetsAHeatMapLinkedToItsRows) {
  const Receipt r = receipt::sample_receipt();  // two problems in two dtypes: a matrix of two rows and two columns
  const std::string html = render({save(r, "matrix.json")});
  const size_t start = html.find(R"(<svg class="heatmap")");
  ASSERT_NE(start, std::string::npos);
  const std::string svg = html.substr(start, html.find("</svg>", start) - start);
  for (const std::string column : {"bf16 TN", "fp16 TN"}) EXPECT_TRUE(HtmlContains(svg, column));
  for (size_t i = 0; i < r.results.size(); ++i)
    for (const auto& c : r.results[i].comparisons) {
      const std::string link = fmt::format(R"(<a href="#matrix-r{}">)", i);
      ASSERT_TRUE(HtmlContains(svg, link));
      EXPECT_TRUE(HtmlContains(svg.substr(svg.find(link), 600), ">" + speedup(c.speedup)));
    }
}

TEST_F(report_page, AMostlyEmptyMatrixGetsNoHeatMap) {
  Receipt r = receipt::sample_receipt();
  r.results.push_back(r.results[0]);
  r.results.back().problem = make_problem("sq1024", 1024, 1024, 1024, DType::fp8_e4m3, Layout::TN);
  receipt::refresh_derived(r);  // three problems in three dtypes: three of nine cells
  EXPECT_EQ(render({save(r, "sweep.json")}).find(R"(<svg class="heatmap")"), std::string::npos);
}

// The sample's decode shape alone, cold; its cublaslt arm timed beside a plain read of its weights.
Receipt decode_receipt() {
  Receipt r = receipt::sample_receipt();
  r.protocol.cold = true;
  r.results.erase(r.results.begin());
  receipt::ArmResult& a = r.results[0].arms[0];
  a.weight_bytes = int64_t{12288} * 4096 * 2;
  a.plain_read_us = {30.0, 30.5, 29.8};
  receipt::refresh_derived(r);
  return r;
}

TEST_F(report_page, DecodeReceiptScalesBarsByBandwidthAndDrawsTheMeasuredLine) {
  const Receipt r = decode_receipt();
  const std::string html = render({save(r, "decode.json")});
  EXPECT_TRUE(HtmlContains(html, "bars: GB/s against the largest"));
  EXPECT_TRUE(HtmlContains(html, R"(<svg class="barchart")"));
  EXPECT_TRUE(HtmlContains(html, fmt::format("measured read bandwidth {} GB/s", gbps(r.machine.read_bw_gbps))));
  for (const auto& a : r.results[0].arms)
    EXPECT_TRUE(HtmlContains(html, fmt::format("{} ({:.0f}%)", gbps(*a.gbps), 100 * *a.gbps / r.machine.read_bw_gbps)));
  EXPECT_TRUE(HtmlContains(html, fmt::format("plain read {:.2f}", *r.results[0].arms[0].plain_read_ratio)));

  const std::string warm = render({save(receipt::sample_receipt(), "warm.json")});
  EXPECT_TRUE(HtmlContains(warm, "bars: TFLOP/s against the largest"));
  EXPECT_EQ(warm.find(R"(<svg class="barchart")"), std::string::npos);  // a warm receipt has no decode chart
}

TEST_F(report_page, DecodeInNnLinearsOrientationIsTheTokensAsN) {
  Receipt r = decode_receipt();
  Problem& p = r.results[0].problem;
  p = make_problem("dec_lin", 12288, 16, 4096, p.dtype, p.layout);  // features as M, 16 tokens as N
  r.results[0].suite = "decode-linear";
  receipt::refresh_derived(r);
  EXPECT_TRUE(HtmlContains(render({save(r, "linear.json")}), R"(<svg class="barchart")"));
}

TEST_F(report_page, InvalidReceiptIsBannedAndListsItsProblems) {
  Receipt r = receipt::sample_receipt();
  r.problems = {"warm-up 2.00 s is under the 10 s floor", "results[1] dec_m16_12288 fp16 TN [cublaslt]: <odd> problem"};
  r.valid = false;
  const std::string html = render({save(r, "bad.json")});
  EXPECT_TRUE(HtmlContains(html, R"(<section id="bad" class="receipt invalid">)"));
  EXPECT_TRUE(HtmlContains(html, "<strong>INVALID receipt</strong>: 2 problems"));
  EXPECT_TRUE(HtmlContains(html, "<li>warm-up 2.00 s is under the 10 s floor</li>"));
  EXPECT_TRUE(HtmlContains(html, "<li>results[1] dec_m16_12288 fp16 TN [cublaslt]: &lt;odd&gt; problem</li>"));
  EXPECT_TRUE(HtmlContains(html, "INVALID (2)"));  // the overview says so too
  EXPECT_EQ(html.find("Valid:"), std::string::npos);
  expect_every_arm_figure(html, r, "bad");  // shown for inspection, not dropped
}

TEST_F(report_page, IncorrectArmShowsWhyAndNoThroughput) {
  Receipt r = receipt::sample_receipt();
  auto& wrong = r.results[0].arms[1];
  wrong.correct = false;
  wrong.rel_err = 0.5;
  receipt::refresh_derived(r);
  const std::string row = element(render({save(r, "wrong.json")}), "tr", "wrong-r0-cublaslt-default");
  EXPECT_TRUE(HtmlContains(row, "incorrect: rel_err 5.00e-01 over the bound 1e-02; not timed"));
  EXPECT_EQ(row.find(us(receipt::median(wrong.us))), std::string::npos);  // its samples are not summarized
}

TEST_F(report_page, DeclinedArmShowsWhyInAValidReceipt) {
  Receipt r = receipt::sample_receipt();
  receipt::decline(r.results[0].arms[1], "no <kernel> for this shape");
  receipt::refresh_derived(r);
  const std::string html = render({save(r, "declined.json")});
  EXPECT_EQ(html.find("INVALID receipt"), std::string::npos);  // declining is not a fault of the run
  const std::string row = element(html, "tr", "declined-r0-cublaslt-default");
  EXPECT_TRUE(HtmlContains(row, "declined: no &lt;kernel&gt; for this shape"));
}

TEST_F(report_page, TamperedReceiptThatClaimsValidIsShownInvalid) {
  Receipt r = receipt::sample_receipt();
  *r.results[0].arms[0].us_median *= 0.5;  // `valid` still says true; the checker knows better
  const std::string html = render({save(r, "tampered.json")});
  EXPECT_TRUE(HtmlContains(html, "INVALID receipt"));
  EXPECT_TRUE(HtmlContains(html, "us_median"));
  EXPECT_TRUE(HtmlContains(html, "does not match its samples"));
}

TEST_F(report_page, EscapesEveryStringFromTheReceipt) {
  Receipt r = receipt::sample_receipt();
  r.results[0].problem.name = "<script>alert('x')</script>&sq";
  r.results[0].arms[0].config_text = "tile=\"<128x256>\"";
  r.notes = {"a <b>bold</b> note"};
  r.skipped = {{"<sk>", "reason & <why>"}};
  const std::string html = render({save(r, "escaped.json")});
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("<sk>"), std::string::npos);
  EXPECT_TRUE(HtmlContains(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;sq"));
  EXPECT_TRUE(HtmlContains(html, "tile=&quot;&lt;128x256&gt;&quot;"));
  EXPECT_TRUE(HtmlContains(html, "a &lt;b&gt;bold&lt;/b&gt; note"));
  EXPECT_TRUE(HtmlContains(html, "reason &amp; &lt;why&gt;"));
  EXPECT_EQ(escape(R"(<a href="x">'&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST_F(report_page, ShowsPreregisteredPredictionsAndVerdicts) {
  Receipt r = receipt::sample_receipt();
  receipt::Preregistration pre{"protocols/sq2048.toml", "0123abc", "Does the tuned vendor arm beat the default?", {}};
  const auto& sq = r.results[0];
  const double sp = sq.comparisons[0].speedup;
  pre.predictions = {
      {"tuned-wins", "sq2048", "bf16", "TN", "speedup", "cublaslt", "cublaslt-default", 1.02, 1.10,
       "speedup under 1.02", sp, "held", "", "faster"},
      {"tflops-high", "sq2048", "bf16", "TN", "tflops", "cublaslt", "", 700, 800, "under 700 TFLOP/s",
       *sq.arms[0].tflops, "missed low", "", ""},
      {"decode-us", "dec_m16_12288", "fp16", "TN", "us_median", "cublaslt", "", 20, 25, "over 25 us",
       *r.results[1].arms[0].us_median, "missed high", "", ""},
      {"fp8-bw", "dec_m16_12288", "fp8", "TN", "gbps", "cublaslt", "", 3000, 4000, "under 3000 GB/s", std::nullopt,
       "not measured", "no such result", ""},
  };
  r.preregistration = pre;
  const std::string html = render({save(r, "prereg.json")});
  EXPECT_TRUE(HtmlContains(html, "Does the tuned vendor arm beat the default?"));
  EXPECT_TRUE(HtmlContains(html, "<code>protocols/sq2048.toml</code>"));
  EXPECT_TRUE(HtmlContains(html, "<code>0123abc</code>"));
  EXPECT_TRUE(HtmlContains(html, "4 predictions, judged by the tool: 1 held, 1 missed high, 1 missed low, 1 not measured."));

  const std::string held = element(html, "tr", "prereg-p-tuned-wins");
  EXPECT_TRUE(HtmlContains(held, R"(<a href="#prereg-r0">sq2048 bf16 TN</a>)"));
  EXPECT_TRUE(HtmlContains(held, "1.020 &ndash; 1.100"));
  EXPECT_TRUE(HtmlContains(held, ">" + speedup(sp) + "<"));
  EXPECT_TRUE(HtmlContains(held, R"(class="verdict v-held">held<)"));
  EXPECT_TRUE(HtmlContains(held, "cublaslt / cublaslt-default"));
  EXPECT_TRUE(HtmlContains(held, "faster"));
  EXPECT_TRUE(HtmlContains(held, "speedup under 1.02"));

  const std::string low = element(html, "tr", "prereg-p-tflops-high");
  EXPECT_TRUE(HtmlContains(low, "700.0 &ndash; 800.0"));
  EXPECT_TRUE(HtmlContains(low, ">" + tflops(*sq.arms[0].tflops) + "<"));
  EXPECT_TRUE(HtmlContains(low, R"(class="verdict v-missed_low">missed low<)"));

  const std::string high = element(html, "tr", "prereg-p-decode-us");
  EXPECT_TRUE(HtmlContains(high, ">" + us(*r.results[1].arms[0].us_median) + "<"));
  EXPECT_TRUE(HtmlContains(high, R"(class="verdict v-missed_high">missed high<)"));

  const std::string none = element(html, "tr", "prereg-p-fp8-bw");
  EXPECT_TRUE(HtmlContains(none, "dec_m16_12288 fp8 TN"));
  EXPECT_TRUE(HtmlContains(none, R"(class="verdict v-not_measured">not measured: no such result<)"));
}

TEST_F(report_page, UnreadableOrForeignFilesThrowNamingThem) {
  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_TRUE(HtmlContains(error_of([&] { render({missing}); }), missing));

  nlohmann::json foreign = receipt::sample_receipt();
  foreign["schema"] = "someone.else/3";
  const std::pair<std::string, std::string> bad[] = {
      {"garbage.json", "not json at all"}, {"empty-object.json", "{}"}, {"other-schema.json", foreign.dump()}};
  for (const auto& [name, text] : bad) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    EXPECT_TRUE(HtmlContains(error_of([&] { render({path.string()}); }), path.string()));
  }

  const fs::path out = dir_ / "out";
  const std::string good = save(receipt::sample_receipt(), "good.json");
  EXPECT_TRUE(HtmlContains(error_of([&] { write_page({good, missing}, out.string()); }), missing));
  EXPECT_FALSE(fs::exists(out / "index.html"));  // nothing half-written
}

TEST_F(report_page, WritesThePageLinkingEachReceiptWhereItLies) {
  fs::create_directories(dir_ / "a");
  fs::create_directories(dir_ / "b");
  const std::string one = save(receipt::sample_receipt(), "a/run.json");
  Receipt other = receipt::sample_receipt();
  other.notes = {"the second run"};
  other.results.pop_back();  // another measurement: neither supersedes the other
  const std::string two = save(other, "b/run.json");  // same file name: their anchors must not collide
  const fs::path out = dir_ / "site";
  write_page({one, two}, out.string());

  const std::string html = slurp(out / "index.html");
  EXPECT_TRUE(HtmlContains(html, "<!doctype html>"));
  EXPECT_TRUE(HtmlContains(html, "default-src 'none'"));  // nothing is fetched
  EXPECT_FALSE(fs::exists(out / "receipts"));  // nothing copied
  EXPECT_TRUE(HtmlContains(element(html, "section", "run"), R"(href="../a/run.json")"));
  EXPECT_TRUE(HtmlContains(element(html, "section", "run-2"), R"(href="../b/run.json")"));
  EXPECT_TRUE(HtmlContains(element(html, "section", "run-2"), "the second run"));

  EXPECT_TRUE(HtmlContains(error_of([&] { write_page({one}, out.string()); }), "give --overwrite"));
  EXPECT_TRUE(HtmlContains(slurp(out / "index.html"), "run-2.json"));  // refused: the page is as it was
  write_page({one}, out.string(), files::Existing::replace);  // rebuilding over an existing page replaces it
  EXPECT_EQ(slurp(out / "index.html").find("run-2.json"), std::string::npos);
}

// The files under a folder, each with its bytes: a page compared whole before and after.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    out[e.path().lexically_relative(dir).string()] = e.is_regular_file() ? slurp(e.path()) : "(folder)";
  return out;
}

// --overwrite deleted the whole of tables/, a user's own files and folders in it too.
TEST_F(report_page, ReplacingAPageDeletesNothingItDidNotWrite) {
  const std::string one = save(receipt::sample_receipt(), "run.json");
  Receipt newer = receipt::sample_receipt();
  newer.created = "2027-01-01T00:00:00Z";  // the same measurement, later: the first supersedes nothing, this one does
  const std::string two = save(newer, "newer.json");
  const fs::path out = dir_ / "site";
  write_page({one, two}, out.string());
  ASSERT_TRUE(fs::exists(out / "tables/superseded.csv"));
  std::ofstream(out / "tables/notes.csv") << "mine";
  fs::create_directories(out / "tables/mine");
  std::ofstream(out / "own.txt") << "mine too";
  const auto before = files_under(out);

  const std::string refused = error_of([&] { write_page({one}, out.string(), files::Existing::replace); });
  EXPECT_TRUE(HtmlContains(refused, (out / "tables/mine").string() + ": not one of the page's tables")) << refused;
  EXPECT_TRUE(HtmlContains(refused, "nor 1 more entry there")) << refused;
  EXPECT_EQ(files_under(out), before) << "refused: the page and the user's files are as they were";

  fs::remove(out / "tables/notes.csv");
  fs::remove(out / "tables/mine");
  write_page({one}, out.string(), files::Existing::replace);
  EXPECT_EQ(slurp(out / "own.txt"), "mine too") << "nothing beside the page is touched";
  // The tables are exactly the new page's: the superseded list it no longer has is gone.
  std::set<std::string> written;
  for (const fs::directory_entry& e : fs::directory_iterator(out / "tables")) written.insert(e.path().filename().string());
  EXPECT_EQ(written, linked_table_files(slurp(out / "index.html")));
  EXPECT_FALSE(written.count("superseded.csv"));
  for (const fs::directory_entry& e : fs::directory_iterator(out))  // the new page's temporary folder is gone
    EXPECT_FALSE(e.path().filename().string().starts_with(".tilewise-page-")) << e.path();
}

// A failed --overwrite (a full disk) deleted the old tables before writing the new ones, leaving index.html linking
// tables that were gone. A file size limit stands in for the full disk.
TEST_F(report_page, AFailedReplaceLeavesThePreviousPageWhole) {
  const std::string one = save(receipt::sample_receipt(), "run.json");
  Receipt other = receipt::sample_receipt();
  other.results.pop_back();  // another measurement: a page of other tables
  const std::string two = save(other, "other.json");
  const fs::path out = dir_ / "site";
  write_page({one}, out.string());
  const auto before = files_under(out);

  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
  rlimit small = old;
  small.rlim_cur = 2000;  // past the smallest table, short of index.html
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string failed = error_of([&] { write_page({one, two}, out.string(), files::Existing::replace); });
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_TRUE(HtmlContains(failed, "the page there is as it was")) << failed;
  EXPECT_EQ(files_under(out), before) << "the previous page, tables and all, and no temporary folder";
  write_page({one, two}, out.string(), files::Existing::replace);  // with room, the same call replaces it
  EXPECT_TRUE(HtmlContains(slurp(out / "index.html"), "other.json"));
}

}  // namespace
}  // namespace tilewise::report
