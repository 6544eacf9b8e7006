#include "report/receipt_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/current.hpp"
#include "report/format.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

using receipt::ArmResult;
using receipt::Receipt;
using receipt::Result;

std::string metric_text(const std::string& metric, double v) {
  if (metric == "us_median") return us_text(v);
  if (metric == "tflops") return tflops_text(v);
  if (metric == "gbps") return gbps_text(v);
  return speedup_text(v);  // speedup and bandwidth_fraction are ratios
}

// Decode shapes stream their weights from HBM, so bandwidth is their figure of merit; the rest are judged by
// their arithmetic rate.
bool bandwidth_bound(const Receipt& r) {
  return r.protocol.cold && !r.results.empty() && std::all_of(r.results.begin(), r.results.end(), is_decode);
}

size_t arm_index(const Receipt& r, const std::string& arm) {
  return size_t(std::find(r.protocol.arms.begin(), r.protocol.arms.end(), arm) - r.protocol.arms.begin());
}

const receipt::Comparison* comparison_of(const Result& res, const std::string& arm) {
  for (const auto& c : res.comparisons)
    if (c.arm == arm) return &c;
  return nullptr;
}

using Rows = std::vector<std::pair<std::string, std::string>>;  // label, HTML value

std::string definition_list(const char* title, const Rows& rows) {
  std::string html = fmt::format("<div><h4>{}</h4><dl>", title);
  for (const auto& [label, value] : rows) html += fmt::format("<dt>{}</dt><dd>{}</dd>", label, value);
  return html + "</dl></div>";
}

std::string clocks_block(const receipt::Clocks& c) {
  if (!c.available) return definition_list("Clocks", {{"sampled", "no: " + escape(c.unavailable_reason)}});
  const auto& d = c.during;
  const auto sample = [](const receipt::ClockSample& s) {
    return fmt::format("{} MHz, {:.0f} W, {} &deg;C at {:.1f} s", s.sm_mhz, s.power_w, s.temp_c, s.t_s);
  };
  std::string reasons;
  for (const auto& r : d.reasons) reasons += (reasons.empty() ? "" : ", ") + escape(r);
  return definition_list(
      "Clocks during timed regions",
      {{"samples", std::to_string(d.samples)},
       {"SM clock", fmt::format("median {} MHz (min {}, max {})", d.sm_mhz_median, d.sm_mhz_min, d.sm_mhz_max)},
       {"power", fmt::format("median {:.0f} W, max {:.0f} W", d.power_w_median, d.power_w_max)},
       {"temperature", fmt::format("max {} &deg;C", d.temp_c_max)},
       {"clock-event reasons", reasons.empty() ? "none" : reasons},
       {"before the run", sample(c.before)},
       {"after the run", sample(c.after)}});
}

std::string kernel_sources_text(const receipt::Tool& t) {
  if (t.kernel_sources.empty()) return "not recorded";
  const std::string digest = fmt::format("<code>{}</code>", escape(t.kernel_sources));
  if (t.kernel_sources_dir.empty()) return digest + " (built into the tool)";
  return digest + fmt::format(" <b class=\"slower\">from {}</b> (TILEWISE_KERNELS_DIR, not the commit's)",
                              escape(t.kernel_sources_dir));
}

std::string machine_block(const Receipt& r) {
  const auto& m = r.machine;
  const auto& p = r.protocol;
  std::string arms;
  for (const auto& a : p.arms) arms += (arms.empty() ? "" : ", ") + escape(a);
  return "<div class=\"machine\">" +
         definition_list(
             "Machine",
             {{"GPU", fmt::format("{} (compute capability {})", escape(m.gpu), escape(m.cc))},
              {"SMs", std::to_string(m.sm_count)},
              {"L2", bytes_text(m.l2_bytes)},
              {"memory", bytes_text(m.memory_bytes)},
              {"max clocks", fmt::format("SM {} MHz, memory {} MHz", m.sm_clock_max_mhz, m.mem_clock_max_mhz)},
              {"power limit", fmt::format("{:.0f} W", m.power_limit_w)},
              {"measured read bandwidth",
               fmt::format("<b>{} GB/s</b> ({} stream, {} passes, median)", gbps_text(m.read_bw_gbps),
                           bytes_text(m.read_bw.bytes), m.read_bw.us.size())}}) +
         clocks_block(r.clocks) +
         definition_list("Software",
                         {{"driver", escape(m.driver)},
                          {"CUDA runtime", escape(m.cuda_runtime)},
                          {"cuBLASLt", escape(m.cublaslt)},
                          {"NVRTC", escape(m.nvrtc)},
                          {"tool", escape(r.tool.name + " " + r.tool.version)},
                          {"commit", fmt::format("<code>{}</code>", escape(r.tool.commit))},
                          {"tree", r.tool.dirty ? "<b class=\"slower\">dirty</b> (uncommitted changes)" : "clean"},
                          {"kernel sources", kernel_sources_text(r.tool)}}) +
         definition_list(
             "Protocol",
             {{"warm-up", fmt::format("{:.2f} s", p.warmup_s)},
              {"repeats", fmt::format("{} (arms interleaved)", p.repeats)},
              {"buffers", p.cold ? fmt::format("cold: up to {} rotation sets, working set &ge; {}", p.rotation_sets,
                                               bytes_text(p.working_set_bytes))
                                 : fmt::format("warm: {} buffer set", p.rotation_sets)},
              {"timing", fmt::format("{}; graph of about {:.1f} ms, median of {} replays", escape(p.timing),
                                     p.graph_target_ms, p.replays)},
              {"vendor selection", fmt::format("{} interleaved rounds; re-warm {:.0f} ms before each problem",
                                               p.selection_rounds, p.rewarm_ms)},
              {"arms", fmt::format("{}; baseline <b>{}</b>", arms, escape(p.baseline))},
              {"seed", std::to_string(p.seed)}}) +
         "</div>";
}

// The five figure columns of an arm's row (median, host, TFLOP/s, GB/s, bar), or one cell saying why there are none.
std::vector<Cell> arm_figures(const ArmResult& a, const Receipt& r, bool by_gbps, double bar_max) {
  if (!a.declined.empty()) return {{"declined: " + a.declined, "", "", "muted", "", 5}};
  if (!a.error.empty()) return {{"did not run: " + a.error, "", "", "fail", "", 5}};
  if (!a.correct)
    return {{fmt::format("incorrect: rel_err {} over the bound {:.0e}; not timed", err_text(a.rel_err), a.bound), "",
             "", "fail", "", 5}};
  const auto bar_value = by_gbps ? a.gbps : a.tflops;
  const bool ranged = a.us_min && a.us_max;
  const std::string median = or_dash(a.us_median, us_text), low = ranged ? us_text(*a.us_min) : "",
                    high = ranged ? us_text(*a.us_max) : "";
  return {{fmt::format("{} ({})", median, ranged ? low + "-" + high : "-"),
           fmt::format("{}<br><small>{}</small>", median, ranged ? low + "&ndash;" + high : "-"), "", "num"},
          {or_dash(a.host_us_median, us_text), "", "", "num"},
          {or_dash(a.tflops, tflops_text), "", "", "num"},
          {or_dash(a.gbps, gbps_text), "", "", "num"},
          {"",
           bar_value ? inline_bar(*bar_value, bar_max, series_colour(arm_index(r, a.arm)),
                                  fmt::format("{} {}", by_gbps ? gbps_text(*bar_value) : tflops_text(*bar_value),
                                              by_gbps ? "GB/s" : "TFLOP/s"))
                     : ""}};
}

Cell comparison_cell(const Result& res, const ArmResult& a, const Receipt& r) {
  if (a.arm == r.protocol.baseline) return {"baseline", "", "", "muted"};
  const auto* c = comparison_of(res, a.arm);
  if (!c) return {"-"};
  const std::string figure = speedup_text(c->speedup) + claim_mark(c->claim);
  return {figure + " " + claim_word(c->claim),
          fmt::format(R"({} <span class="claim">{}</span>)", figure, claim_word(c->claim)), "",
          fmt::format("num {}", claim_class(c->claim)),
          fmt::format("{} median / {} median over {} repeats: {}", c->baseline, c->arm, r.protocol.repeats,
                      claim_word(c->claim))};
}

Table results_table(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  const bool by_gbps = bandwidth_bound(r);
  double bar_max = 0;
  for (const Result& res : r.results)
    for (const ArmResult& a : res.arms)
      if (const auto v = by_gbps ? a.gbps : a.tflops) bar_max = std::max(bar_max, *v);
  const char* unit = by_gbps ? "GB/s" : "TFLOP/s";
  Table t{"results-" + stem(p),
          "results",
          fmt::format("{} results; bars: {} against the largest in this table ({}); speedup = {} median / arm median, "
                      "claimed only where the ranges over the repeats do not overlap",
                      r.results.size(), unit, by_gbps ? gbps_text(bar_max) : tflops_text(bar_max),
                      escape(r.protocol.baseline)),
          {{"problem"}, {"dtype"}, {"layout"}, {"MxNxK", "M&times;N&times;K"}, {"arm"},
           {"median us (range)", "median &micro;s<br>(range)"}, {"host us", "host &micro;s"}, {"TFLOP/s"}, {"GB/s"},
           {unit, unit, "", "", "", 1, true}, {"vs baseline"}, {"rel_err"}, {"configuration"}},
          {},
          4};
  for (size_t i = 0; i < r.results.size(); ++i) {
    const Result& res = r.results[i];
    for (const ArmResult& a : res.arms) {
      Row row{arm_row_id(p, i, a.arm), "", result_id(p, i), {},
              {{res.problem.name,
                fmt::format(R"({}<br><small><a href="{}" title="{} results[{}]">results[{}]</a></small>)",
                            escape(res.problem.name), escape(p.href), escape(p.file), i, i),
                "", "problem"},
               {text_of(res.problem.dtype)},
               {text_of(res.problem.layout)},
               {shape_text(res.problem), "", "", "num"},
               {a.arm,
                fmt::format(R"(<span class="swatch" style="background:{}"></span>{})",
                            series_colour(arm_index(r, a.arm)), escape(a.arm)),
                "", "arm",
                fmt::format("SM clock while timed: median {} MHz (min {}, max {}), {} samples", a.clock.sm_mhz_median,
                            a.clock.sm_mhz_min, a.clock.sm_mhz_max, a.clock.samples)}}};
      for (Cell& c : arm_figures(a, r, by_gbps, bar_max)) row.cells.push_back(std::move(c));
      row.cells.push_back(comparison_cell(res, a, r));
      row.cells.push_back({err_text(a.rel_err), "", "", "num"});
      row.cells.push_back({a.config_text, "", "", "config"});
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

// The whole matrix at a glance, for receipts that cover several dtype x layout pairs (the llm24 suite's matrix).
std::string heat_maps(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  std::vector<std::pair<DType, Layout>> columns;
  std::vector<std::string> rows, notes;
  for (const Result& res : r.results) {
    const std::pair column{res.problem.dtype, res.problem.layout};
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
    if (std::find(rows.begin(), rows.end(), res.problem.name) == rows.end()) {
      rows.push_back(res.problem.name);
      notes.push_back(shape_text(res.problem));
    }
  }
  if (columns.size() < 2 || rows.size() < 2) return "";  // a single row or column is already a line of the table
  // A sweep measures each problem in one dtype and layout: its matrix would be mostly empty cells, and long.
  if (2 * r.results.size() < rows.size() * columns.size()) return "";
  std::sort(columns.begin(), columns.end());
  std::string html;
  for (const std::string& arm : r.protocol.arms) {
    if (arm == r.protocol.baseline) continue;
    HeatMap map{rows, notes, {}, std::vector(rows.size(), std::vector<std::optional<HeatCell>>(columns.size()))};
    for (const auto& [dtype, layout] : columns)
      map.columns.push_back(fmt::format("{} {}", to_string(dtype), to_string(layout)));
    for (size_t i = 0; i < r.results.size(); ++i) {
      const Problem& pb = r.results[i].problem;
      const auto* c = comparison_of(r.results[i], arm);
      if (!c) continue;
      const size_t row = size_t(std::find(rows.begin(), rows.end(), pb.name) - rows.begin());
      const size_t col =
          size_t(std::find(columns.begin(), columns.end(), std::pair{pb.dtype, pb.layout}) - columns.begin());
      map.cells[row][col] = HeatCell{
          c->speedup, speedup_text(c->speedup) + claim_mark(c->claim), c->claim != "none", "#" + result_id(p, i),
          fmt::format("{} {}: {} over {} {}x ({}), results[{}]", case_text(pb), shape_text(pb), arm,
                      r.protocol.baseline, speedup_text(c->speedup), claim_word(c->claim), i)};
    }
    html += fmt::format(R"(<figure><figcaption>Speedup of <b>{}</b> over <b>{}</b> per problem (rows) and dtype x )"
                        R"(layout (columns); + faster, - slower, ~ ranges overlap (drawn faint). Each cell links to )"
                        R"(its table row.</figcaption><div class="scroll">{}</div>{}</figure>)",
                        escape(arm), escape(r.protocol.baseline), heat_map(map), heat_legend());
  }
  return html.empty() ? "" : fmt::format(R"(<h3 id="{}-heatmap">Speedup heat map</h3>)", stem(p)) + html;
}

// Decode shapes are judged against what the memory can deliver: the bandwidth this run measured.
std::string decode_chart(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  if (!r.protocol.cold) return "";
  const double read_bw = r.machine.read_bw_gbps;
  BarChart chart{
      r.protocol.arms,
      {},
      "GB/s",
      read_bw,
      read_bw > 0 ? fmt::format("measured read bandwidth {} GB/s", gbps_text(read_bw)) : "read bandwidth not measured"};
  for (size_t i = 0; i < r.results.size(); ++i) {
    const Result& res = r.results[i];
    if (!is_decode(res)) continue;
    BarGroup group{case_text(res.problem),
                   "#" + result_id(p, i),
                   fmt::format("{} {}: results[{}]", case_text(res.problem), shape_text(res.problem), i),
                   {}};
    for (const ArmResult& a : res.arms)
      if (a.gbps) {
        std::string label = read_bw > 0 ? fmt::format("{} ({:.0f}%)", gbps_text(*a.gbps), 100 * *a.gbps / read_bw)
                                        : gbps_text(*a.gbps);
        if (a.plain_read_ratio) label += fmt::format(", plain read {:.2f}", *a.plain_read_ratio);
        group.bars.push_back({arm_index(r, a.arm), *a.gbps, label});
      }
    chart.groups.push_back(std::move(group));
  }
  if (chart.groups.empty()) return "";
  return fmt::format(
      R"(<h3 id="{}-decode">Decode shapes against the measured read bandwidth</h3><figure><figcaption>Each arm's )"
      R"(GB/s (least traffic / median time) on the decode shapes (M &le; 16, or N &le; 16 in nn.Linear's )"
      R"(orientation); the dashed line is the read bandwidth measured in the same run; percentages are of it. Where )"
      R"(an arm streams weights of its own, "plain read" is a plain read of those bytes timed beside it, over the )"
      R"(arm's time.</figcaption><div class="scroll">{}</div></figure>)",
      stem(p), bar_chart(chart));
}

std::string preregistration(const PageReceipt& p, std::vector<Table>& tables) {
  const Receipt& r = p.receipt;
  if (!r.preregistration) return "";
  const auto& pre = *r.preregistration;
  std::map<std::string, int> verdicts;
  for (const auto& pr : pre.predictions) ++verdicts[pr.verdict];
  std::string tally;
  for (const auto& [verdict, n] : verdicts)
    tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, escape(verdict));
  Table t{"predictions-" + stem(p), "predictions", "",
          {{"id"}, {"problem"}, {"metric"}, {"arm / baseline"}, {"predicted"}, {"measured"}, {"verdict"}, {"claim"},
           {"falsifier"}},
          {}};
  for (const auto& pr : pre.predictions) {
    const std::string problem = fmt::format("{} {} {}", pr.problem, pr.dtype, pr.layout);
    std::string problem_html = escape(problem);
    for (size_t i = 0; i < r.results.size(); ++i) {
      const Problem& pb = r.results[i].problem;
      if (pb.name == pr.problem && to_string(pb.dtype) == pr.dtype && to_string(pb.layout) == pr.layout)
        problem_html = anchor_link(result_id(p, i), problem);
    }
    const std::string low = metric_text(pr.metric, pr.low), high = metric_text(pr.metric, pr.high);
    t.rows.push_back({fmt::format("{}-p-{}", stem(p), safe_name(pr.id)), "", "", {},
                      {{pr.id},
                       {problem, problem_html},
                       {pr.metric},
                       {pr.baseline.empty() ? pr.arm : pr.arm + " / " + pr.baseline},
                       {low + " - " + high, low + " &ndash; " + high, "", "num"},
                       {pr.measured ? metric_text(pr.metric, *pr.measured) : "-", "", "", "num"},
                       {pr.reason.empty() ? pr.verdict : pr.verdict + ": " + pr.reason, "", "",
                        "verdict v-" + safe_name(pr.verdict)},
                       {pr.claim.empty() ? "" : claim_word(pr.claim)},
                       {pr.falsifier}}});
  }
  const std::string table = add_table(tables, std::move(t));
  return fmt::format(R"(<h3>Preregistration</h3><blockquote>{}</blockquote><p>Protocol <code>{}</code>, frozen at )"
                     R"(commit <code>{}</code>. {} predictions, judged by the tool: {}.</p>)",
                     escape(pre.question), escape(pre.path), escape(pre.commit), pre.predictions.size(), tally) +
         table;
}

std::string skipped(const PageReceipt& p, std::vector<Table>& tables) {
  const Receipt& r = p.receipt;
  if (r.skipped.empty()) return "";
  Table t{"skipped-" + stem(p), "skipped", "", {{"case"}, {"reason"}}, {}};
  for (const auto& s : r.skipped) t.rows.push_back({"", "", "", {}, {{s.problem}, {s.reason}}});
  return fmt::format("<h3>Skipped ({})</h3>", r.skipped.size()) + add_table(tables, std::move(t));
}

std::string verdict_banner(const PageReceipt& p) {
  if (p.verdict.valid)
    return fmt::format(
        R"(<p class="valid">Valid: <code>tilewise check</code> finds no problems in its {} results.</p>)",
        p.verdict.results);
  std::string html = fmt::format(
      R"(<div class="invalid-banner"><strong>INVALID receipt</strong>: {} problem{}. Its figures are shown for )"
      R"(inspection only and are not results.<ul>)",
      p.verdict.problems.size(), p.verdict.problems.size() == 1 ? "" : "s");
  for (const auto& problem : p.verdict.problems) html += "<li>" + escape(problem) + "</li>";
  return html + "</ul></div>";
}

}  // namespace

std::vector<std::string> arm_summaries(const Receipt& r) {
  std::vector<std::string> out;
  for (const std::string& arm : r.protocol.arms) {
    if (arm == r.protocol.baseline) continue;
    double log_sum = 0;
    int cases = 0, faster = 0, slower = 0;
    for (const Result& res : r.results)
      if (const auto* c = comparison_of(res, arm); c && c->speedup > 0) {
        log_sum += std::log(c->speedup);
        ++cases;
        faster += c->claim == "faster";
        slower += c->claim == "slower";
      }
    out.push_back(cases ? fmt::format("{} vs {}: geometric mean {}x over {} cases ({} faster, {} slower, {} ranges "
                                      "overlap)",
                                      arm, r.protocol.baseline, speedup_text(std::exp(log_sum / cases)), cases, faster,
                                      slower, cases - faster - slower)
                        : fmt::format("{} vs {}: no comparable cases", arm, r.protocol.baseline));
  }
  return out;
}

std::string receipt_section(const PageReceipt& p, std::vector<Table>& tables) {
  const Receipt& r = p.receipt;
  std::string html = fmt::format(
      R"(<section id="{}" class="receipt{}"><h2>{} <a class="source" href="{}">receipt JSON</a></h2>{})"
      R"(<p class="meta">created {} &middot; <code>{}</code></p>)",
      stem(p), p.verdict.valid ? "" : " invalid", escape(p.file), escape(p.href), verdict_banner(p), escape(r.created),
      escape(r.command));
  for (const auto& note : r.notes) html += "<p class=\"note\">" + escape(note) + "</p>";
  html += machine_block(r) + preregistration(p, tables) + "<h3>Summary</h3>";
  for (const std::string& s : arm_summaries(r)) html += "<p>" + escape(s) + "</p>";
  html += heat_maps(p) + decode_chart(p) + "<h3>All results</h3>";
  html += add_table(tables, results_table(p));
  return html + skipped(p, tables) + "</section>";
}

}  // namespace tilewise::report
