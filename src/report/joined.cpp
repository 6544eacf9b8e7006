#include "report/joined.hpp"

#include <fmt/format.h>

#include <map>

#include "report/compare.hpp"
#include "report/format.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

using receipt::ArmResult;

std::string key_case(const ProblemKey& k) {
  return fmt::format("{} {} {}", k.name, to_string(k.dtype), to_string(k.layout));
}
std::string key_shape(const ProblemKey& k) { return fmt::format("{}x{}x{}", k.M, k.N, k.K); }
std::string key_id(const ProblemKey& k) {
  return fmt::format("{}-{}-{}", safe_name(k.name), to_string(k.dtype), to_string(k.layout));
}
std::vector<Cell> problem_head() { return {{"problem"}, {"dtype"}, {"layout"}, {"MxNxK", "M&times;N&times;K"}}; }
std::vector<Cell> problem_cells(const ProblemKey& k) {
  return {{k.name, "", "", "problem"}, {text_of(k.dtype)}, {text_of(k.layout)}, {key_shape(k), "", "", "num"}};
}
const char* buffers_word(bool cold) { return cold ? "cold" : "warm"; }

// The arm's row in its receipt's section, which links on to the receipt.
std::string row_href(const Source& s) { return "#" + arm_row_id(*s.receipt, s.result, s.arm->arm); }

std::string source_text(const Source& s) {
  return fmt::format("{} results[{}] (created {}{})", s.receipt->file, s.result, s.receipt->receipt.created,
                     s.receipt->verdict.valid ? "" : ", INVALID receipt");
}

std::string receipt_link(const Source& s) {
  return fmt::format(R"(<a href="{}" title="{} results[{}]">{}</a> [{}])", escape(s.receipt->href),
                     escape(s.receipt->file), s.result, escape(stem(*s.receipt)), s.result);
}

std::string receipt_list(const std::vector<const PageReceipt*>& receipts) {
  std::string html;
  for (const PageReceipt* p : receipts)
    html += (html.empty() ? "" : ", ") + anchor_link(stem(*p), p->file) +
            (p->verdict.valid ? "" : R"( <b class="slower">INVALID</b>)");
  return html;
}

std::string side_title(const ProblemKey& k, const std::string& arm, const SideCell& c) {
  std::string title = fmt::format("{} on {} {}: {}", arm, key_case(k), key_shape(k), source_text(c.shown));
  if (!c.older.empty()) {
    title += fmt::format("; the most recent of {} receipts that ran this arm on this problem; the others: ",
                         c.older.size() + 1);
    for (size_t i = 0; i < c.older.size(); ++i) title += (i ? ", " : "") + source_text(c.older[i]);
  }
  if (!c.shown.receipt->verdict.valid)
    title = fmt::format("The receipt {} is INVALID: these figures are not results. {}", c.shown.receipt->file, title);
  return title;
}

// What the cell says, as text and as the page's links.
std::pair<std::string, std::string> side_figures(const Source& s) {
  const ArmResult& a = *s.arm;
  const auto linked = [&](const std::string& word) {
    return std::pair{word, fmt::format(R"(<a href="{}">{}</a>)", row_href(s), word)};
  };
  if (!a.declined.empty()) return linked("declined");
  if (!a.error.empty()) return linked("did not run");
  if (!a.correct) return linked("incorrect");
  const std::string us = or_dash(a.us_median, us_text), tflops = or_dash(a.tflops, tflops_text);
  return {fmt::format("{} us, {} TFLOP/s", us, tflops),
          fmt::format(R"(<a href="{}">{}</a> <small>{} TFLOP/s</small>)", row_href(s), us, tflops)};
}

Cell side_cell(const std::string& id, const ProblemKey& k, const std::string& arm,
               const std::optional<SideCell>& cell) {
  if (!cell) return {"-", "", "", "num muted"};
  const Source& s = cell->shown;
  auto [text, html] = side_figures(s);
  if (!s.receipt->verdict.valid) {
    text += " (INVALID receipt)";
    html = "<s>" + html + R"(</s><br><small class="invalid-cell">INVALID receipt</small>)";
  }
  const std::string newest = cell->older.empty() ? "" : fmt::format(" &middot; newest of {}", cell->older.size() + 1);
  text += fmt::format(" from {} [{}]", stem(*s.receipt), s.result) +
          (cell->older.empty() ? "" : fmt::format(", newest of {}", cell->older.size() + 1));
  return {text, fmt::format("{}<br><small>{}{}</small>", html, receipt_link(s), newest), id,
          fmt::format("num{}{}", s.arm->error.empty() && s.arm->correct ? "" : " fail",
                      cell->older.empty() ? "" : " several"),
          side_title(k, arm, *cell)};
}

std::string side_heading(const SideTable& t, const std::string& id) {
  return fmt::format(R"(<h3 id="{}">{} <small>{} &middot; {} buffers</small></h3>)", id, escape(t.suite), escape(t.gpu),
                     buffers_word(t.cold));
}

std::string side_table_html(const SideTable& t, const std::string& id, std::vector<Table>& tables) {
  if (t.rows.empty())
    return side_heading(t, id) +
           fmt::format("<p>No problem that two arms measured, in {}.</p>", receipt_list(t.receipts));
  Table table{id, "side",
              fmt::format("{} problem{} measured by at least two arms, from {}", t.rows.size(),
                          t.rows.size() == 1 ? "" : "s", receipt_list(t.receipts)),
              problem_head(), {}};
  for (const std::string& arm : t.arms)
    table.head.push_back({arm, fmt::format("{}<br><small>&micro;s, TFLOP/s</small>", escape(arm))});
  for (const SideRow& row : t.rows) {
    const std::string row_id = fmt::format("{}-{}", id, key_id(row.problem));
    Row r{row_id, "", "", {}, problem_cells(row.problem)};
    for (size_t c = 0; c < t.arms.size(); ++c)
      r.cells.push_back(
          side_cell(fmt::format("{}-{}", row_id, safe_name(t.arms[c])), row.problem, t.arms[c], row.cells[c]));
    table.rows.push_back(std::move(r));
  }
  return side_heading(t, id) + add_table(tables, std::move(table));
}

std::string cross_counts(const CrossCheck& c) {
  return fmt::format(
      R"(<p class="counts">On {}: {} problem{} paired; <b>{}</b> long kernel{} (cublaslt-default median &ge; {:.0f} )"
      R"(&micro;s) compared, <b>{}</b> within 5% (ratio in [{:.2f}, {:.2f}]), <b class="{}">{}</b> outside{}.</p>)",
      escape(c.gpu), c.rows.size(), c.rows.size() == 1 ? "" : "s", c.long_kernels, c.long_kernels == 1 ? "" : "s",
      long_kernel_us, c.within, agree_low, agree_high, c.outside ? "slower" : "", c.outside,
      c.outside ? fmt::format(", of which {} within 5% in SM cycles", c.outside_within_in_cycles) : "");
}

Cell cross_source(const Source& s) {
  return {fmt::format("{} [{}] {}", stem(*s.receipt), s.result, s.receipt->receipt.created),
          fmt::format("{}<br><small>{}</small>", receipt_link(s), escape(s.receipt->receipt.created))};
}

Cell linked_cell(const Source& s, const std::string& text) {
  return {text, fmt::format(R"(<a href="{}">{}</a>)", row_href(s), text), "", "num"};
}

Row cross_row(const CrossRow& row, const std::string& id) {
  const ArmResult &t = *row.torch.arm, &v = *row.vendor.arm;
  Row r{id, row.flagged ? "flagged" : "", "", {}, problem_cells(row.problem)};
  r.cells.push_back({buffers_word(row.vendor.receipt->receipt.protocol.cold)});
  r.cells.push_back(linked_cell(row.torch, us_text(*t.us_median)));
  r.cells.push_back(linked_cell(row.vendor, us_text(*v.us_median)));
  r.cells.push_back({speedup_text(row.ratio), "", "", "num",
                     fmt::format("torch {} / cublaslt-default {}", us_text(*t.us_median), us_text(*v.us_median))});
  r.cells.push_back(row.cycle_ratio ? Cell{speedup_text(*row.cycle_ratio), "", "", "num"}
                                    : Cell{"no clock", "", "", "muted"});
  r.cells.push_back(linked_cell(row.torch, std::to_string(t.clock.sm_mhz_median)));
  r.cells.push_back(linked_cell(row.vendor, std::to_string(v.clock.sm_mhz_median)));
  r.cells.push_back(cross_source(row.torch));
  r.cells.push_back(cross_source(row.vendor));
  r.cells.push_back(row.flagged ? Cell{"outside +/-5%", "outside &plusmn;5%", "", "flag"}
                                : Cell{row.long_kernel ? "within" : "short", "", "", "muted"});
  return r;
}

Table cross_table(const CrossCheck& c, size_t g) {
  Table t{g ? fmt::format("cross-check-{}", g) : "cross-check", "cross", "", problem_head(), {}};
  for (Cell h : std::vector<Cell>{{"buffers"},
                                  {"torch median us", "torch<br>median &micro;s"},
                                  {"cublaslt-default median us", "cublaslt-default<br>median &micro;s"},
                                  {"torch / default", "torch /<br>default"},
                                  {"in SM cycles", "in SM<br>cycles"},
                                  {"torch SM MHz", "torch<br>SM MHz"},
                                  {"default SM MHz", "default<br>SM MHz"},
                                  {"torch receipt"},
                                  {"cublaslt-default receipt"},
                                  {"flag"}})
    t.head.push_back(std::move(h));
  for (const CrossRow& row : c.rows)
    t.rows.push_back(cross_row(row, fmt::format("xc{}-{}-{}", g, key_id(row.problem),
                                                buffers_word(row.vendor.receipt->receipt.protocol.cold))));
  return t;
}

}  // namespace

std::string side_by_side_section(const std::vector<PageReceipt>& receipts, std::vector<Table>& tables) {
  std::string html, contents;
  std::map<std::string, int> seen;  // a suite split over GPUs or buffer modes gets numbered ids
  for (const SideTable& t : side_by_side(receipts)) {
    const int n = ++seen[t.suite];
    const std::string id = n == 1 ? "sbs-" + safe_name(t.suite) : fmt::format("sbs-{}-{}", safe_name(t.suite), n);
    contents += anchor_link(id, n == 1 ? t.suite : fmt::format("{} {}", t.suite, n)) +
                fmt::format(" ({} rows) &middot; ", t.rows.size());
    html += side_table_html(t, id, tables);
  }
  return R"(<section id="side-by-side" class="compare"><h2>Side by side</h2><p class="meta">One table per suite (the )"
         R"(<code>--suite</code> files in each receipt's command; none: <i>other</i>), GPU and buffer mode; rows are )"
         R"(the problems that at least two different arms measured across those receipts. Each cell is the arm's )"
         R"(median &micro;s, linked to its row on this page, its TFLOP/s, and the receipt and result it came )"
         R"(from. Where several receipts ran the arm on a problem the most recent (by <code>created</code>) is shown; )"
         R"(the cell says so and its tooltip names the others. Figures from a receipt that )"
         R"(<code>tilewise check</code> rejects are struck through.</p><p>Tables: )" +
         contents + R"(<a href="#cross-check">cross-check</a></p>)" + html + "</section>";
}

std::string cross_check_section(const std::vector<PageReceipt>& receipts, std::vector<Table>& tables) {
  const CrossChecks checks = cross_check(receipts);
  std::string html = fmt::format(
      R"(<section id="cross-check" class="compare"><h2>Cross-check: torch.mm against cublaslt-default</h2>)"
      R"(<p class="meta">torch.mm runs cuBLASLt's first heuristic candidate, so the peer runner's <code>torch</code> )"
      R"(arm and tilewise's <code>cublaslt-default</code> should time the same kernel. One row per problem both )"
      R"(measured correctly, in valid receipts on the same GPU with the same buffer mode, from the pair of receipts )"
      R"(closest in <code>created</code>. Ratio = torch median / cublaslt-default median (under 1: torch faster); )"
      R"(flagged where cublaslt-default runs {:.0f} &micro;s or longer and the ratio is outside [{:.2f}, {:.2f}]. )"
      R"(The ratio in SM cycles weighs each median by its arm's median SM clock: where a flagged gap is gone )"
      R"(there, the two runs held different clocks, not different kernels. )"
      R"(Medians and clocks link to the arms' rows.</p>)",
      long_kernel_us, agree_low, agree_high);
  if (!checks.left_out.empty())
    html +=
        "<p class=\"slower\">Left out, as the checker finds them INVALID: " + receipt_list(checks.left_out) + ".</p>";
  if (checks.gpus.empty()) html += "<p>No problem was measured by both arms on the same GPU.</p>";
  for (size_t g = 0; g < checks.gpus.size(); ++g) {
    if (checks.gpus.size() > 1) html += fmt::format("<h3>{}</h3>", escape(checks.gpus[g].gpu));
    html += cross_counts(checks.gpus[g]) + add_table(tables, cross_table(checks.gpus[g], g));
  }
  return html + "</section>";
}

}  // namespace tilewise::report
