#include "report/decode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "receipt/derive.hpp"
#include "report/format.hpp"
#include "report/row_key.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

// One decode problem of a row, from its receipt.
struct DecodeCase {
  const PageReceipt* receipt;
  size_t result;
  double read_gbps;
  std::optional<double> selected, baseline, best;  // GB/s
};

// The arms' columns, in order: selected, cuBLASLt's default, cuBLASLt's best, each with its bar's colour.
using ArmField = std::optional<double> DecodeCase::*;
const std::array<std::pair<ArmField, const char*>, 3> arm_columns = {
    {{&DecodeCase::selected, "#2166ac"}, {&DecodeCase::baseline, "#9ca3af"}, {&DecodeCase::best, "#d6604d"}}};

std::optional<double> gbps_of(const receipt::Result& res, const char* arm, bool with_options) {
  const receipt::ArmResult* a = receipt::timed_arm(res, arm, with_options);
  return a ? a->gbps : std::nullopt;
}

std::vector<DecodeCase> cases_of(const CurrentRow& row) {
  std::vector<DecodeCase> out;
  for (const PageReceipt* p : row.receipts)
    for (size_t i = 0; i < p->receipt.results.size(); ++i) {
      const receipt::Result& res = p->receipt.results[i];
      if (!in_row(res, row) || !is_decode(res)) continue;
      out.push_back({p, i, p->receipt.machine.read_bw_gbps, gbps_of(res, mode_arm(row.mode), true),
                     gbps_of(res, "cublaslt-default", false), gbps_of(res, "cublaslt", false)});
    }
  return out;
}

// The fraction of the read bandwidth, where both are known.
std::optional<double> fraction(const std::optional<double>& gbps, double read_gbps) {
  if (!gbps || read_gbps <= 0) return std::nullopt;
  return *gbps / read_gbps;
}

Cell fraction_cell(const std::optional<double>& f, const char* colour) {
  if (!f) return {"-", "", "", "num muted"};
  return {percent_text(*f), inline_bar(*f, 1.0, colour, percent_text(*f) + " of the read bandwidth") + " " +
                                percent_text(*f), "", "num"};
}

// Median and range over the cases of one arm's fraction: "77% (1%-93%)" beside a bar of the median.
Cell summary_cell(const std::vector<DecodeCase>& cases, ArmField arm, const char* colour) {
  std::vector<double> f;
  for (const DecodeCase& c : cases)
    if (const auto x = fraction(c.*arm, c.read_gbps)) f.push_back(*x);
  if (f.empty()) return {"-", "", "", "num muted"};
  const auto [lo, hi] = std::minmax_element(f.begin(), f.end());
  const double median = receipt::median(f);
  return {fmt::format("{} ({}-{})", percent_text(median), percent_text(*lo), percent_text(*hi)),
          fmt::format("{} <b>{}</b> <small>{}&ndash;{}</small>",
                      inline_bar(median, 1.0, colour, percent_text(median) + " of the read bandwidth"),
                      percent_text(median), percent_text(*lo), percent_text(*hi)),
          "", "num ratio"};
}

std::string read_text(const std::vector<DecodeCase>& cases) {
  double lo = 0, hi = 0;
  for (const DecodeCase& c : cases) {
    lo = lo == 0 ? c.read_gbps : std::min(lo, c.read_gbps);
    hi = std::max(hi, c.read_gbps);
  }
  return lo == hi ? gbps_text(lo) : fmt::format("{}-{}", gbps_text(lo), gbps_text(hi));
}

// The row's mode, GPU, suite, orientation, dtype and ldc class.
std::vector<Cell> row_key_cells(const CurrentRow& r) {
  std::vector<Cell> cells = mode_key_cells(r);
  cells.push_back(ldc_class_cell(r));
  return cells;
}

Cell gbps_cell(const std::optional<double>& v) { return {v ? gbps_text(*v) : "-", "", "", "num"}; }

}  // namespace

std::string decode_section(const CurrentHeadline& h, std::vector<Table>& tables) {
  std::vector<Cell> summary_head = mode_key_head();
  summary_head.insert(summary_head.end(),
                      {{"ldc"}, {"problems"}, {"read GB/s"},
                       {"selected: of read, median (range)", "selected<br><small>of read: median, range</small>"},
                       {"cuBLASLt default: of read, median (range)",
                        "cuBLASLt default<br><small>of read: median, range</small>"},
                       {"cuBLASLt best: of read, median (range)",
                        "cuBLASLt best<br><small>of read: median, range</small>"}});
  Table summary{"decode", "decode", "", std::move(summary_head), {}};
  const size_t lead = 4;  // a problem's row leads with its row's mode, GPU, suite and orientation; dtype, ldc its own
  std::vector<Cell> each_head = mode_key_head();
  each_head.resize(lead);
  each_head.insert(each_head.end(), {{"problem"}, {"dtype"}, {"layout"}, {"MxNxK"}, {"ldc"}, {"read GB/s"},
                                     {"selected GB/s"}, {"of read"}, {"cuBLASLt default GB/s"}, {"of read"},
                                     {"cuBLASLt best GB/s"}, {"of read"}, {"receipt"}});
  Table each{"decode-problems", "decode", "", std::move(each_head), {}};
  for (const CurrentRow& r : h.rows) {
    const std::vector<DecodeCase> cases = cases_of(r);
    if (cases.empty()) continue;
    Row row{fmt::format("decode-{}", summary.rows.size()), "", "", {}, row_key_cells(r)};
    row.cells.push_back({std::to_string(cases.size()), "", "", "num"});
    row.cells.push_back({read_text(cases), "", "", "num"});
    for (const auto& [arm, colour] : arm_columns) row.cells.push_back(summary_cell(cases, arm, colour));
    summary.rows.push_back(std::move(row));
    for (const DecodeCase& c : cases) {
      const Problem& p = c.receipt->receipt.results[c.result].problem;
      std::vector<Cell> cells = mode_key_cells(r);
      cells.resize(lead);
      cells.insert(cells.end(), {{p.name}, {text_of(p.dtype)}, {text_of(p.layout)}, {shape_text(p)},
                                 {std::to_string(p.ldc), "", "", "num"}, gbps_cell(c.read_gbps)});
      for (const auto& [arm, colour] : arm_columns) {
        cells.push_back(gbps_cell(c.*arm));
        cells.push_back(fraction_cell(fraction(c.*arm, c.read_gbps), colour));
      }
      cells.push_back({fmt::format("{} results[{}]", c.receipt->file, c.result),
                       anchor_link(result_id(*c.receipt, c.result), fmt::format("{} [{}]", stem(*c.receipt), c.result))});
      each.rows.push_back({"", "", "", {}, std::move(cells)});
    }
  }
  std::string html =
      R"(<section id="decode"><h2>Decode against bandwidth</h2><p class="meta">The rows above with a handful of )"
      R"(tokens (M &le; 16 column-major, N &le; 16 in nn.Linear's orientation): each arm's GB/s (the least )"
      R"(traffic over its median time) as a fraction of the read bandwidth its receipt measured on the same GPU; )"
      R"(median and range over the row's problems.</p>)";
  if (summary.rows.empty()) return html + "<p>No decode problems among them.</p></section>";
  html += add_table(tables, std::move(summary));
  const size_t problems = each.rows.size();
  return html + fmt::format(R"(<details><summary>Every decode problem ({})</summary>{}</details></section>)", problems,
                            add_table(tables, std::move(each)));
}

}  // namespace tilewise::report
