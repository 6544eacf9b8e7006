#include "report/first_screen.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/decode.hpp"
#include "report/format.hpp"
#include "report/row_key.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

constexpr const char* default_colour = "#2166ac";
constexpr const char* best_colour = "#d6604d";

std::string mode_name(Mode m) { return m == Mode::defaults ? "defaults" : "first-use"; }

std::string receipts_cell_html(const std::vector<const PageReceipt*>& receipts) {
  std::string html;
  for (const PageReceipt* p : receipts)
    html += (html.empty() ? "" : ", ") + anchor_link(stem(*p), stem(*p));
  return html;
}
std::string receipts_text(const std::vector<const PageReceipt*>& receipts) {
  std::string text;
  for (const PageReceipt* p : receipts) text += (text.empty() ? "" : ", ") + p->file;
  return text;
}

// The columns every headline table has, after its own leading ones.
std::vector<Cell> figure_head() {
  return {{"cases"},
          {"", "", "", "chart", "", 1, true},
          {"vs cuBLASLt default (range over repeats)", "vs cuBLASLt default<br><small>range over repeats</small>"},
          {"vs cuBLASLt best (range over repeats)", "vs cuBLASLt best<br><small>range over repeats</small>"},
          {"faster"},
          {"slower"},
          {"receipts"}};
}

// "1.053x (1.020-1.071)", or "-" where the row has no such figure.
Cell ratio_cell(double mid, double low, double high) {
  if (mid <= 0) return {"-", "", "", "num muted"};
  return {fmt::format("{}x ({}-{})", speedup_text(mid), speedup_text(low), speedup_text(high)),
          fmt::format("<b>{}x</b> <small>{}&ndash;{}</small>", speedup_text(mid), speedup_text(low),
                      speedup_text(high)),
          "", "num ratio"};
}

std::vector<Cell> figure_cells(const CurrentRow& r, const RatioAxis& axis) {
  const HeadlineRow& f = r.figures;
  const Cell vs_default = ratio_cell(f.vs_default, f.vs_default_low, f.vs_default_high);
  const Cell vs_best = ratio_cell(f.vs_best, f.vs_best_low, f.vs_best_high);
  std::vector<RatioMark> marks = {
      {f.vs_default, f.vs_default_low, f.vs_default_high, default_colour, "vs cuBLASLt default " + vs_default.text}};
  if (f.vs_best > 0)
    marks.push_back({f.vs_best, f.vs_best_low, f.vs_best_high, best_colour, "vs cuBLASLt best " + vs_best.text, true});
  return {{std::to_string(f.cases), "", "", "num"},
          {"", ratio_strip(axis, marks), "", "chart"},
          vs_default,
          vs_best,
          {std::to_string(f.faster), "", "", "num faster"},
          {std::to_string(f.slower), "", "", f.slower ? "num slower" : "num"},
          {receipts_text(r.receipts), receipts_cell_html(r.receipts), "", "receipts"}};
}

RatioAxis axis_of(const std::vector<const CurrentRow*>& rows) {
  double lowest = 1, highest = 1;
  for (const CurrentRow* r : rows)
    for (double v : {r->figures.vs_default_low, r->figures.vs_default_high, r->figures.vs_best_low,
                     r->figures.vs_best_high})
      if (v > 0) lowest = std::min(lowest, v), highest = std::max(highest, v);
  return ratio_axis(lowest, highest);
}

// data-* attributes that let a check find the row's figures again: `tilewise headline --by-dtype --arm ARM` over
// the receipts (links from the page, '|' between them) prints them.
std::vector<std::pair<std::string, std::string>> row_data(const CurrentRow& r) {
  std::string hrefs;
  for (const PageReceipt* p : r.receipts) hrefs += (hrefs.empty() ? "" : "|") + p->href;
  return {{"arm", mode_arm(r.mode)},          {"receipts", hrefs},
          {"suite", r.figures.suite},         {"orientation", r.figures.orientation},
          {"dtype", r.figures.dtype},         {"ldc", r.figures.aligned ? "aligned" : "unaligned"},
          {"gpu", r.gpu}};
}

// A table of rows: `lead` names the leading columns, `lead_cells` fills them for a row.
template <class LeadCells>
Table ratio_table(const std::string& name, const std::string& caption, const std::vector<const CurrentRow*>& rows,
                  const RatioAxis& axis, std::vector<Cell> lead, LeadCells lead_cells) {
  Table t{name, "headline", caption, std::move(lead), {}};
  for (Cell& c : figure_head()) t.head.push_back(std::move(c));
  for (Cell& c : t.head)
    if (c.page_only) c.html = ratio_scale(axis);
  for (const CurrentRow* r : rows) {
    Row row{fmt::format("{}-{}", name, t.rows.size()), "", "", row_data(*r), lead_cells(*r)};
    for (Cell& c : figure_cells(*r, axis)) row.cells.push_back(std::move(c));
    t.rows.push_back(std::move(row));
  }
  return t;
}


std::string headline_tables(const CurrentHeadline& h, std::vector<Table>& tables) {
  std::vector<std::pair<Mode, std::string>> groups;  // mode, GPU, in the rows' order
  for (const CurrentRow& r : h.rows)
    if (std::find(groups.begin(), groups.end(), std::pair{r.mode, r.gpu}) == groups.end())
      groups.emplace_back(r.mode, r.gpu);
  std::vector<const CurrentRow*> aligned;  // one axis for the headline's tables, so that they compare at a glance
  for (const CurrentRow& r : h.rows)
    if (r.figures.aligned) aligned.push_back(&r);
  const RatioAxis axis = axis_of(aligned);
  std::string html;
  std::vector<std::string> names;
  for (const auto& [mode, gpu] : groups) {
    std::vector<const CurrentRow*> rows;
    for (const CurrentRow& r : h.rows)
      if (r.mode == mode && r.gpu == gpu && r.figures.aligned) rows.push_back(&r);
    if (rows.empty()) continue;
    std::string name = "headline-" + mode_name(mode);
    if (std::find(names.begin(), names.end(), name) != names.end()) name += "-" + safe_name(gpu);
    names.push_back(name);
    html += add_table(tables, ratio_table(
        name,
        fmt::format(R"(<b><code>{}</code></b>: {} &middot; {} &middot; ldc a multiple of 8)", mode_arm(mode),
                    mode_title(mode), escape(gpu)),
        rows, axis, key_head(), key_cells));
  }
  return html.empty() ? "<p>No valid, cold receipt runs <code>selected</code> beside cuBLASLt's default.</p>" : html;
}

std::string cliff_section(const CurrentHeadline& h, std::vector<Table>& tables) {
  std::vector<const CurrentRow*> rows;
  for (const CurrentRow& r : h.rows)
    if (!r.figures.aligned) rows.push_back(&r);
  std::string html =
      R"(<section id="cliff"><h2>On cuBLASLt's alignment cliff: ldc not a multiple of 8</h2><p class="meta">)"
      R"(Where C's leading dimension is not a multiple of 8 elements cuBLASLt falls back to slower kernels; wins )"
      R"(here are real for such strides but say nothing of the aligned case, so they are never the headline.</p>)";
  if (rows.empty()) return html + "<p>No such rows.</p></section>";
  return html + add_table(tables, ratio_table("cliff", "", rows, axis_of(rows), mode_key_head(), mode_key_cells)) +
         "</section>";
}

std::string earlier_section(const CurrentHeadline& h, std::vector<Table>& tables) {
  if (h.earlier.empty()) return "";
  std::vector<const CurrentRow*> rows;
  for (const CurrentRow& r : h.earlier) rows.push_back(&r);
  std::vector<Cell> lead = mode_key_head();
  lead.push_back({"ldc"});
  lead.push_back({"measured again by"});
  Table t = ratio_table("earlier", "", rows, axis_of(rows), lead, [](const CurrentRow& r) {
    std::vector<Cell> cells = mode_key_cells(r);
    cells.push_back(ldc_class_cell(r));
    cells.push_back({r.replaced_by->file, anchor_link(stem(*r.replaced_by), r.replaced_by->file)});
    return cells;
  });
  return fmt::format(R"(<details id="earlier"><summary>Earlier measurements ({} rows): the same problems, )"
                     R"(measured again by a more recent receipt</summary>{}</details>)",
                     rows.size(), add_table(tables, std::move(t)));
}

}  // namespace

std::string first_screen(const CurrentHeadline& h, std::vector<Table>& tables) {
  std::string html =
      R"(<section id="headline"><p class="lede"><code>selected</code> (what <code>tilewise::gemm</code> runs) )"
      R"(against cuBLASLt, cold: cuBLASLt's time over <code>selected</code>'s, geometric mean over each row's )"
      R"(problems, <span style="color:#2166ac">&#9679; against its default</span> (the heuristic's first choice) and )"
      R"(<span style="color:#d6604d">&#9671; against its best candidate</span> where timed, with the ranges over the )"
      R"(repeats; faster and slower count problems whose ranges do not overlap. Column-major C as in cuBLAS; )"
      R"(nn.Linear's y = x W<sup>T</sup> is TN with M = features, N = tokens. Each problem counts once, from the )"
      R"(most recent valid receipt that measured it.</p>)";
  html += headline_tables(h, tables) + "</section>";
  return html + cliff_section(h, tables) + decode_section(h, tables) + earlier_section(h, tables);
}

}  // namespace tilewise::report
