#include "report/page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/file.hpp"
#include "report/compare.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

namespace fs = std::filesystem;
using receipt::ArmResult;
using receipt::Receipt;
using receipt::Result;

// One format per quantity, so a figure reads the same in every table and chart of the page.
std::string us_text(double v) { return fmt::format("{:.2f}", v); }
std::string tflops_text(double v) { return fmt::format("{:.1f}", v); }
std::string gbps_text(double v) { return fmt::format("{:.0f}", v); }
std::string speedup_text(double v) { return fmt::format("{:.3f}", v); }
std::string err_text(const std::optional<double>& v) { return v ? fmt::format("{:.2e}", *v) : "-"; }
std::string or_dash(const std::optional<double>& v, std::string (*text)(double)) { return v ? text(*v) : "-"; }

std::string metric_text(const std::string& metric, double v) {
  if (metric == "us_median") return us_text(v);
  if (metric == "tflops") return tflops_text(v);
  if (metric == "gbps") return gbps_text(v);
  return speedup_text(v);  // speedup and bandwidth_fraction are ratios
}

std::string bytes_text(int64_t b) {
  constexpr double mib = 1 << 20, gib = 1 << 30;
  if (double(b) >= gib) return fmt::format("{:.1f} GiB", double(b) / gib);
  if (double(b) >= mib) return fmt::format("{:.0f} MiB", double(b) / mib);
  return fmt::format("{} B", b);
}

const char* claim_word(const std::string& claim) {
  return claim == "faster" ? "faster" : claim == "slower" ? "slower" : "ranges overlap";
}
const char* claim_mark(const std::string& claim) { return claim == "faster" ? "+" : claim == "slower" ? "-" : "~"; }
const char* claim_class(const std::string& claim) {
  return claim == "faster" ? "faster" : claim == "slower" ? "slower" : "overlap";
}

// Names that become ids, file names and class names keep to characters that need no escaping anywhere.
std::string safe_name(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return out;
}

std::string stem(const PageReceipt& p) { return fs::path(p.file).stem().string(); }
std::string result_id(const PageReceipt& p, size_t i) { return fmt::format("{}-r{}", stem(p), i); }
std::string shape(const Problem& p) { return fmt::format("{}x{}x{}", p.M, p.N, p.K); }
std::string case_name(const Problem& p) {
  return fmt::format("{} {} {}", p.name, to_string(p.dtype), to_string(p.layout));
}

std::string arm_row_id(const PageReceipt& p, size_t i, const std::string& arm) {
  return fmt::format("{}-{}", result_id(p, i), safe_name(arm));
}

std::string source_link(const PageReceipt& p, size_t i) {
  return fmt::format(R"(<a href="{}" title="{} results[{}]">results[{}]</a>)", escape(p.href), p.file, i, i);
}

// Decode shapes stream their weights from HBM, so bandwidth is their figure of merit; the rest are judged by
// their arithmetic rate.
bool is_decode(const Problem& p) { return p.M <= 16; }
bool bandwidth_bound(const Receipt& r) {
  return r.protocol.cold && !r.results.empty() &&
         std::all_of(r.results.begin(), r.results.end(), [](const Result& x) { return is_decode(x.problem); });
}

size_t arm_index(const Receipt& r, const std::string& arm) {
  return size_t(std::find(r.protocol.arms.begin(), r.protocol.arms.end(), arm) - r.protocol.arms.begin());
}

const receipt::Comparison* comparison_of(const Result& res, const std::string& arm) {
  for (const auto& c : res.comparisons)
    if (c.arm == arm) return &c;
  return nullptr;
}

struct ArmSummary {
  std::string arm;
  double geomean = 0;
  int cases = 0, faster = 0, slower = 0;
};

std::vector<ArmSummary> arm_summaries(const Receipt& r) {
  std::vector<ArmSummary> out;
  for (const std::string& arm : r.protocol.arms) {
    if (arm == r.protocol.baseline) continue;
    ArmSummary s{arm};
    double log_sum = 0;
    for (const Result& res : r.results)
      if (const auto* c = comparison_of(res, arm); c && c->speedup > 0) {
        log_sum += std::log(c->speedup);
        ++s.cases;
        s.faster += c->claim == "faster";
        s.slower += c->claim == "slower";
      }
    if (s.cases) s.geomean = std::exp(log_sum / s.cases);
    out.push_back(s);
  }
  return out;
}

std::string summary_text(const ArmSummary& s, const std::string& baseline) {
  if (!s.cases) return fmt::format("{} vs {}: no comparable cases", escape(s.arm), escape(baseline));
  return fmt::format("{} vs {}: geometric mean <b>{}x</b> over {} cases ({} faster, {} slower, {} ranges overlap)",
                     escape(s.arm), escape(baseline), speedup_text(s.geomean), s.cases, s.faster, s.slower,
                     s.cases - s.faster - s.slower);
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
                          {"tree", r.tool.dirty ? "<b class=\"slower\">dirty</b> (uncommitted changes)" : "clean"}}) +
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

std::string arm_figures(const ArmResult& a, const Receipt& r, bool by_gbps, double bar_max) {
  if (!a.declined.empty())
    return fmt::format(R"(<td colspan="5" class="muted">declined: {}</td>)", escape(a.declined));
  if (!a.error.empty()) return fmt::format(R"(<td colspan="5" class="fail">did not run: {}</td>)", escape(a.error));
  if (!a.correct)
    return fmt::format(R"(<td colspan="5" class="fail">incorrect: rel_err {} over the bound {:.0e}; not timed</td>)",
                       err_text(a.rel_err), a.bound);
  const auto bar_value = by_gbps ? a.gbps : a.tflops;
  const std::string range =
      a.us_min && a.us_max ? fmt::format("{}&ndash;{}", us_text(*a.us_min), us_text(*a.us_max)) : "-";
  return fmt::format(R"(<td class="num">{}<br><small>{}</small></td><td class="num">{}</td>)"
                     R"(<td class="num">{}</td><td class="num">{}</td><td>{}</td>)",
                     or_dash(a.us_median, us_text), range, or_dash(a.host_us_median, us_text),
                     or_dash(a.tflops, tflops_text), or_dash(a.gbps, gbps_text),
                     bar_value
                         ? inline_bar(*bar_value, bar_max, series_colour(arm_index(r, a.arm)),
                                      fmt::format("{} {}", by_gbps ? gbps_text(*bar_value) : tflops_text(*bar_value),
                                                  by_gbps ? "GB/s" : "TFLOP/s"))
                         : "");
}

std::string comparison_cell(const Result& res, const ArmResult& a, const Receipt& r) {
  if (a.arm == r.protocol.baseline) return R"(<td class="muted">baseline</td>)";
  const auto* c = comparison_of(res, a.arm);
  if (!c) return "<td>-</td>";
  return fmt::format(R"(<td class="num {0}" title="{1} median / {2} median over {3} repeats: {4}">{5}{6} )"
                     R"(<span class="claim">{4}</span></td>)",
                     claim_class(c->claim), escape(c->baseline), escape(c->arm), r.protocol.repeats,
                     claim_word(c->claim), speedup_text(c->speedup), claim_mark(c->claim));
}

std::string results_table(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  const bool by_gbps = bandwidth_bound(r);
  double bar_max = 0;
  for (const Result& res : r.results)
    for (const ArmResult& a : res.arms)
      if (const auto v = by_gbps ? a.gbps : a.tflops) bar_max = std::max(bar_max, *v);
  const char* unit = by_gbps ? "GB/s" : "TFLOP/s";
  std::string html = fmt::format(
      R"(<div class="scroll"><table class="results"><caption>{} results; bars: {} against the largest in this table )"
      R"(({}); speedup = {} median / arm median, claimed only where the ranges over the repeats do not )"
      R"(overlap</caption>)"
      R"(<thead><tr><th>problem</th><th>dtype</th><th>layout</th><th>M&times;N&times;K</th><th>arm</th>)"
      R"(<th>median &micro;s<br>(range)</th><th>host &micro;s</th><th>TFLOP/s</th><th>GB/s</th><th>{}</th>)"
      R"(<th>vs baseline</th><th>rel_err</th><th>configuration</th></tr></thead>)",
      r.results.size(), unit, by_gbps ? gbps_text(bar_max) : tflops_text(bar_max), escape(r.protocol.baseline), unit);
  for (size_t i = 0; i < r.results.size(); ++i) {
    const Result& res = r.results[i];
    html += fmt::format(R"(<tbody id="{}">)", result_id(p, i));
    for (size_t j = 0; j < res.arms.size(); ++j) {
      const ArmResult& a = res.arms[j];
      html += fmt::format(R"(<tr id="{}">)", arm_row_id(p, i, a.arm));
      if (j == 0)
        html +=
            fmt::format(R"(<td rowspan="{0}" class="problem">{2}<br><small>{1}</small></td>)"
                        R"(<td rowspan="{0}">{3}</td><td rowspan="{0}">{4}</td><td rowspan="{0}" class="num">{5}</td>)",
                        res.arms.size(), source_link(p, i), escape(res.problem.name), to_string(res.problem.dtype),
                        to_string(res.problem.layout), shape(res.problem));
      html += fmt::format(R"(<td class="arm" title="SM clock while timed: median {} MHz (min {}, max {}), {} samples">)"
                          R"(<span class="swatch" style="background:{}"></span>{}</td>)",
                          a.clock.sm_mhz_median, a.clock.sm_mhz_min, a.clock.sm_mhz_max, a.clock.samples,
                          series_colour(arm_index(r, a.arm)), escape(a.arm));
      html += arm_figures(a, r, by_gbps, bar_max) + comparison_cell(res, a, r);
      html += fmt::format(R"(<td class="num">{}</td><td class="config">{}</td></tr>)", err_text(a.rel_err),
                          escape(a.config_text));
    }
    html += "</tbody>";
  }
  return html + "</table></div>";
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
      notes.push_back(shape(res.problem));
    }
  }
  if (columns.size() < 2 || rows.size() < 2) return "";  // a single row or column is already a line of the table
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
          fmt::format("{} {}: {} over {} {}x ({}), results[{}]", case_name(pb), shape(pb), arm, r.protocol.baseline,
                      speedup_text(c->speedup), claim_word(c->claim), i)};
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
    if (!is_decode(res.problem)) continue;
    BarGroup group{case_name(res.problem),
                   "#" + result_id(p, i),
                   fmt::format("{} {}: results[{}]", case_name(res.problem), shape(res.problem), i),
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
      R"(GB/s (least traffic / median time) on the shapes with M &le; 16; the dashed line is the )"
      R"(read bandwidth measured in the same run; percentages are of it. Where an arm streams weights of its own, )"
      R"("plain read" is a plain read of those bytes timed beside it, over the arm's time.</figcaption>)"
      R"(<div class="scroll">{}</div></figure>)",
      stem(p), bar_chart(chart));
}

std::string preregistration(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  if (!r.preregistration) return "";
  const auto& pre = *r.preregistration;
  std::map<std::string, int> verdicts;
  for (const auto& pr : pre.predictions) ++verdicts[pr.verdict];
  std::string tally;
  for (const auto& [verdict, n] : verdicts) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, escape(verdict));
  std::string html = fmt::format(
      R"(<h3>Preregistration</h3><blockquote>{}</blockquote><p>Protocol <code>{}</code>, frozen at commit )"
      R"(<code>{}</code>. {} predictions, judged by the tool: {}.</p><div class="scroll"><table class="predictions">)"
      R"(<thead><tr><th>id</th><th>problem</th><th>metric</th><th>arm / baseline</th><th>predicted</th>)"
      R"(<th>measured</th><th>verdict</th><th>claim</th><th>falsifier</th></tr></thead><tbody>)",
      escape(pre.question), escape(pre.path), escape(pre.commit), pre.predictions.size(), tally);
  for (const auto& pr : pre.predictions) {
    std::string problem = escape(fmt::format("{} {} {}", pr.problem, pr.dtype, pr.layout));
    for (size_t i = 0; i < r.results.size(); ++i) {
      const Problem& pb = r.results[i].problem;
      if (pb.name == pr.problem && to_string(pb.dtype) == pr.dtype && to_string(pb.layout) == pr.layout)
        problem = fmt::format(R"(<a href="#{}">{}</a>)", result_id(p, i), problem);
    }
    const std::string verdict = pr.reason.empty() ? escape(pr.verdict) : escape(pr.verdict + ": " + pr.reason);
    html +=
        fmt::format(R"(<tr id="{}-p-{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="num">{} &ndash; {}</td>)"
                    R"(<td class="num">{}</td><td class="verdict v-{}">{}</td><td>{}</td><td>{}</td></tr>)",
                    stem(p), safe_name(pr.id), escape(pr.id), problem, escape(pr.metric),
                    escape(pr.baseline.empty() ? pr.arm : pr.arm + " / " + pr.baseline), metric_text(pr.metric, pr.low),
                    metric_text(pr.metric, pr.high), pr.measured ? metric_text(pr.metric, *pr.measured) : "-",
                    safe_name(pr.verdict), verdict, pr.claim.empty() ? "" : claim_word(pr.claim), escape(pr.falsifier));
  }
  return html + "</tbody></table></div>";
}

std::string skipped(const Receipt& r) {
  if (r.skipped.empty()) return "";
  std::string html = fmt::format(R"(<h3>Skipped ({})</h3><table class="skipped"><thead><tr><th>case</th>)"
                                 R"(<th>reason</th></tr></thead><tbody>)",
                                 r.skipped.size());
  for (const auto& s : r.skipped)
    html += fmt::format("<tr><td>{}</td><td>{}</td></tr>", escape(s.problem), escape(s.reason));
  return html + "</tbody></table>";
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

std::string section(const PageReceipt& p) {
  const Receipt& r = p.receipt;
  std::string html = fmt::format(
      R"(<section id="{}" class="receipt{}"><h2>{} <a class="source" href="{}">receipt JSON</a></h2>{})"
      R"(<p class="meta">created {} &middot; <code>{}</code></p>)",
      stem(p), p.verdict.valid ? "" : " invalid", escape(p.file), escape(p.href), verdict_banner(p), escape(r.created),
      escape(r.command));
  for (const auto& note : r.notes) html += "<p class=\"note\">" + escape(note) + "</p>";
  html += machine_block(r) + preregistration(p) + "<h3>Summary</h3>";
  for (const auto& s : arm_summaries(r)) html += "<p>" + summary_text(s, r.protocol.baseline) + "</p>";
  return html + heat_maps(p) + decode_chart(p) + "<h3>All results</h3>" + results_table(p) + skipped(r) + "</section>";
}

std::string overview(const std::vector<PageReceipt>& receipts) {
  std::string html = R"(<table class="overview"><thead><tr><th>receipt</th><th>check</th><th>created</th><th>GPU</th>)"
                     R"(<th>buffers</th><th>results</th><th>skipped</th><th>speedups</th></tr></thead><tbody>)";
  for (const auto& p : receipts) {
    const Receipt& r = p.receipt;
    std::string speedups;
    for (const auto& s : arm_summaries(r)) speedups += summary_text(s, r.protocol.baseline) + "<br>";
    html += fmt::format(R"(<tr><td><a href="#{}">{}</a></td><td class="{}">{}</td><td>{}</td><td>{}</td><td>{}</td>)"
                        R"(<td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>)",
                        stem(p), escape(p.file), p.verdict.valid ? "valid" : "invalid-cell",
                        p.verdict.valid ? "valid" : fmt::format("INVALID ({})", p.verdict.problems.size()),
                        escape(r.created), escape(r.machine.gpu), r.protocol.cold ? "cold" : "warm", r.results.size(),
                        r.skipped.size(), speedups);
  }
  return html + "</tbody></table>";
}

// --- the receipts joined by problem (report/compare.hpp) ---

std::string key_case(const ProblemKey& k) {
  return fmt::format("{} {} {}", k.name, to_string(k.dtype), to_string(k.layout));
}
std::string key_shape(const ProblemKey& k) { return fmt::format("{}x{}x{}", k.M, k.N, k.K); }
std::string key_id(const ProblemKey& k) {
  return fmt::format("{}-{}-{}", safe_name(k.name), to_string(k.dtype), to_string(k.layout));
}
std::string problem_cells(const ProblemKey& k) {
  return fmt::format(R"(<td class="problem">{}</td><td>{}</td><td>{}</td><td class="num">{}</td>)", escape(k.name),
                     to_string(k.dtype), to_string(k.layout), key_shape(k));
}
const char* buffers_word(bool cold) { return cold ? "cold" : "warm"; }

// The arm's row in its receipt's section, which links on to the receipt.
std::string row_href(const Source& s) { return "#" + arm_row_id(*s.receipt, s.result, s.arm->arm); }

// Plain text, for titles: escaped where it is used.
std::string source_text(const Source& s) {
  return fmt::format("{} results[{}] (created {}{})", s.receipt->file, s.result, s.receipt->receipt.created,
                     s.receipt->verdict.valid ? "" : ", INVALID receipt");
}

std::string receipt_link(const Source& s) {
  return fmt::format(R"(<a href="{}" title="{} results[{}]">{}</a> [{}])", escape(s.receipt->href), s.receipt->file,
                     s.result, escape(stem(*s.receipt)), s.result);
}

std::string receipt_list(const std::vector<const PageReceipt*>& receipts) {
  std::string html;
  for (const PageReceipt* p : receipts)
    html += fmt::format(R"({}<a href="#{}">{}</a>{})", html.empty() ? "" : ", ", stem(*p), escape(p->file),
                        p->verdict.valid ? "" : R"( <b class="slower">INVALID</b>)");
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
  return escape(title);
}

std::string side_figures(const Source& s) {
  const ArmResult& a = *s.arm;
  if (!a.declined.empty()) return fmt::format(R"(<a href="{}">declined</a>)", row_href(s));
  if (!a.error.empty()) return fmt::format(R"(<a href="{}">did not run</a>)", row_href(s));
  if (!a.correct) return fmt::format(R"(<a href="{}">incorrect</a>)", row_href(s));
  return fmt::format(R"(<a href="{}">{}</a> <small>{} TFLOP/s</small>)", row_href(s), or_dash(a.us_median, us_text),
                     or_dash(a.tflops, tflops_text));
}

std::string side_cell(const std::string& id, const ProblemKey& k, const std::string& arm,
                      const std::optional<SideCell>& cell) {
  if (!cell) return R"(<td class="num muted">-</td>)";
  const Source& s = cell->shown;
  std::string figures = side_figures(s);
  if (!s.receipt->verdict.valid)
    figures = "<s>" + figures + R"(</s><br><small class="invalid-cell">INVALID receipt</small>)";
  return fmt::format(R"(<td id="{}" class="num{}{}" title="{}">{}<br><small>{}{}</small></td>)", id,
                     s.arm->error.empty() && s.arm->correct ? "" : " fail", cell->older.empty() ? "" : " several",
                     side_title(k, arm, *cell), figures, receipt_link(s),
                     cell->older.empty() ? "" : fmt::format(" &middot; newest of {}", cell->older.size() + 1));
}

std::string side_heading(const SideTable& t, const std::string& id) {
  return fmt::format(R"(<h3 id="{}">{} <small>{} &middot; {} buffers</small></h3>)", id, escape(t.suite), escape(t.gpu),
                     buffers_word(t.cold));
}

std::string side_table_html(const SideTable& t, const std::string& id) {
  if (t.rows.empty())
    return side_heading(t, id) +
           fmt::format("<p>No problem that two arms measured, in {}.</p>", receipt_list(t.receipts));
  std::string html =
      side_heading(t, id) +
      fmt::format(
          R"(<div class="scroll"><table class="side"><caption>{} problem{} measured by at least two arms, from {})"
          R"(</caption><thead><tr><th>problem</th><th>dtype</th><th>layout</th><th>M&times;N&times;K</th>)",
          t.rows.size(), t.rows.size() == 1 ? "" : "s", receipt_list(t.receipts));
  for (const std::string& arm : t.arms)
    html += fmt::format("<th>{}<br><small>&micro;s, TFLOP/s</small></th>", escape(arm));
  html += "</tr></thead><tbody>";
  for (const SideRow& row : t.rows) {
    const std::string row_id = fmt::format("{}-{}", id, key_id(row.problem));
    html += fmt::format(R"(<tr id="{}">{})", row_id, problem_cells(row.problem));
    for (size_t c = 0; c < t.arms.size(); ++c)
      html += side_cell(fmt::format("{}-{}", row_id, safe_name(t.arms[c])), row.problem, t.arms[c], row.cells[c]);
    html += "</tr>";
  }
  return html + "</tbody></table></div>";
}

std::string side_by_side_section(const std::vector<PageReceipt>& receipts) {
  std::string tables, contents;
  std::map<std::string, int> seen;  // a suite split over GPUs or buffer modes gets numbered ids
  for (const SideTable& t : side_by_side(receipts)) {
    const int n = ++seen[t.suite];
    const std::string id = n == 1 ? "sbs-" + safe_name(t.suite) : fmt::format("sbs-{}-{}", safe_name(t.suite), n);
    contents += fmt::format(R"(<a href="#{}">{}</a> ({} rows) &middot; )", id,
                            escape(n == 1 ? t.suite : fmt::format("{} {}", t.suite, n)), t.rows.size());
    tables += side_table_html(t, id);
  }
  return R"(<section id="side-by-side" class="compare"><h2>Side by side</h2><p class="meta">One table per suite (the )"
         R"(<code>--suite</code> files in each receipt's command; none: <i>other</i>), GPU and buffer mode; rows are )"
         R"(the problems that at least two different arms measured across those receipts. Each cell is the arm's )"
         R"(median &micro;s, linked to its row on this page, its TFLOP/s, and the receipt and result it came )"
         R"(from. Where several receipts ran the arm on a problem the most recent (by <code>created</code>) is shown; )"
         R"(the cell says so and its tooltip names the others. Figures from a receipt that )"
         R"(<code>tilewise check</code> rejects are struck through.</p><p>Tables: )" +
         contents + R"(<a href="#cross-check">cross-check</a></p>)" + tables + "</section>";
}

std::string cross_counts(const CrossCheck& c) {
  return fmt::format(
      R"(<p class="counts">On {}: {} problem{} paired; <b>{}</b> long kernel{} (cublaslt-default median &ge; {:.0f} )"
      R"(&micro;s) compared, <b>{}</b> within 5% (ratio in [{:.2f}, {:.2f}]), <b class="{}">{}</b> outside{}.</p>)",
      escape(c.gpu), c.rows.size(), c.rows.size() == 1 ? "" : "s", c.long_kernels, c.long_kernels == 1 ? "" : "s",
      long_kernel_us, c.within, agree_low, agree_high, c.outside ? "slower" : "", c.outside,
      c.outside ? fmt::format(", of which {} within 5% in SM cycles", c.outside_within_in_cycles) : "");
}

std::string cross_source(const Source& s) {
  return fmt::format("{}<br><small>{}</small>", receipt_link(s), escape(s.receipt->receipt.created));
}

std::string linked_cell(const Source& s, const std::string& text) {
  return fmt::format(R"(<td class="num"><a href="{}">{}</a></td>)", row_href(s), text);
}

std::string cross_row_html(const CrossRow& row, const std::string& id) {
  const ArmResult &t = *row.torch.arm, &v = *row.vendor.arm;
  const std::string flag = row.flagged
                               ? R"(<td class="flag">outside &plusmn;5%</td>)"
                               : fmt::format(R"(<td class="muted">{}</td>)", row.long_kernel ? "within" : "short");
  return fmt::format(R"(<tr id="{}"{}>{}<td>{}</td>)", id, row.flagged ? R"( class="flagged")" : "",
                     problem_cells(row.problem), buffers_word(row.vendor.receipt->receipt.protocol.cold)) +
         linked_cell(row.torch, us_text(*t.us_median)) + linked_cell(row.vendor, us_text(*v.us_median)) +
         fmt::format(R"(<td class="num" title="torch {} / cublaslt-default {}">{}</td>)", us_text(*t.us_median),
                     us_text(*v.us_median), speedup_text(row.ratio)) +
         (row.cycle_ratio ? fmt::format(R"(<td class="num">{}</td>)", speedup_text(*row.cycle_ratio))
                          : std::string(R"(<td class="muted">no clock</td>)")) +
         linked_cell(row.torch, std::to_string(t.clock.sm_mhz_median)) +
         linked_cell(row.vendor, std::to_string(v.clock.sm_mhz_median)) +
         fmt::format("<td>{}</td><td>{}</td>{}</tr>", cross_source(row.torch), cross_source(row.vendor), flag);
}

std::string cross_table(const CrossCheck& c, size_t g) {
  std::string html =
      cross_counts(c) +
      R"(<div class="scroll"><table class="cross"><thead><tr><th>problem</th><th>dtype</th>)"
      R"(<th>layout</th><th>M&times;N&times;K</th><th>buffers</th><th>torch<br>median &micro;s</th>)"
      R"(<th>cublaslt-default<br>median &micro;s</th><th>torch /<br>default</th><th>in SM<br>cycles</th>)"
      R"(<th>torch<br>SM MHz</th>)"
      R"(<th>default<br>SM MHz</th><th>torch receipt</th><th>cublaslt-default receipt</th><th>flag</th>)"
      R"(</tr></thead><tbody>)";
  for (const CrossRow& row : c.rows)
    html += cross_row_html(row, fmt::format("xc{}-{}-{}", g, key_id(row.problem),
                                            buffers_word(row.vendor.receipt->receipt.protocol.cold)));
  return html + "</tbody></table></div>";
}

std::string cross_check_section(const std::vector<PageReceipt>& receipts) {
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
    html += cross_table(checks.gpus[g], g);
  }
  return html + "</section>";
}

// Inline, and only the browser's own fonts: the page opens from disk with nothing to fetch.
constexpr const char* css = R"(
:root { --ink: #1d2330; --muted: #5b6475; --line: #dde2ea; --faster: #2166ac; --slower: #b2182b; --overlap: #6b7280; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); margin: 24px 32px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 0 0 8px; }
h3 { font-size: 16px; margin: 26px 0 8px; }
h4 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
a { color: #1f5fa8; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
section.receipt { border-top: 3px solid var(--line); margin-top: 36px; padding-top: 14px; }
section.invalid { border-top-color: var(--slower); }
a.source { font-size: 13px; font-weight: normal; margin-left: 8px; }
.invalid-banner { background: #fdecee; border: 2px solid var(--slower); color: #7a0f1f; padding: 10px 16px; }
.invalid-banner strong { font-size: 18px; letter-spacing: .04em; }
.valid { color: #1b6e3a; }
.invalid-cell { color: var(--slower); font-weight: 700; }
.meta, .note, figcaption, caption { color: var(--muted); font-size: 13px; }
caption { text-align: left; padding-bottom: 6px; }
blockquote { margin: 0 0 8px; padding: 6px 14px; border-left: 4px solid var(--line); font-style: italic; }
.machine { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 14px 24px; }
.machine dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 3px 7px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
th { font-size: 12px; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); }
th, td.num, td.problem, td.arm, table.overview td:not(:last-child) { white-space: nowrap; }
td.num { text-align: right; }
table.results { width: 100%; }
table.results tbody:nth-of-type(even) td { background: #f6f8fb; }
tbody:target td, tr:target td { background: #fff3b0 !important; }
td.config { font: 11px/1.3 ui-monospace, Menlo, Consolas, monospace; color: var(--muted); min-width: 220px; }
small { color: var(--muted); font-size: 11px; }
td.fail { color: var(--slower); font-weight: 600; }
td.muted { color: var(--muted); }
.faster { color: var(--faster); }
.slower { color: var(--slower); }
.overlap { color: var(--overlap); }
.claim { font-size: 11px; font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
td.verdict { font-weight: 600; white-space: nowrap; }
table.predictions td:nth-child(-n+4) { white-space: nowrap; }
.v-held { background: #dcf2e3; color: #14532d; }
.v-missed_high { background: #fde2e1; color: #7f1d1d; }
.v-missed_low { background: #fde9d0; color: #7c2d12; }
.v-not_measured { background: #eceff3; color: #4b5563; }
figure { margin: 8px 0 16px; }
.scroll { overflow-x: auto; }
svg { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg.bar { vertical-align: middle; }
svg .note, svg .value { fill: var(--muted); font-size: 11px; }
svg .value { paint-order: stroke; stroke: #fff; stroke-width: 3px; } /* legible where it crosses the reference line */
svg .head { font-weight: 600; }
svg .grid { stroke: #e3e7ee; }
svg .empty { fill: #f1f3f6; }
svg line.reference { stroke: #111; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg text.reference { font-weight: 600; }
section.compare { border-top: 3px solid var(--line); margin-top: 36px; padding-top: 14px; }
table.side td.num, table.cross td.num { white-space: nowrap; }
s { color: var(--slower); text-decoration-thickness: 2px; }
.counts { font-size: 15px; }
tr.flagged td { background: #fdecee; }
td.flag { color: var(--slower); font-weight: 700; white-space: nowrap; }
)";

// The receipt's name on the page names its anchors, so it must be unique there.
std::string page_name(const std::string& path, std::set<std::string>& taken) {
  const std::string base = safe_name(fs::path(path).stem().string());
  std::string name = base + ".json";
  for (int n = 2; !taken.insert(name).second; ++n) name = fmt::format("{}-{}.json", base, n);
  return name;
}

}  // namespace

std::vector<PageReceipt> load_receipts(const std::vector<std::string>& receipt_paths, const std::string& page_dir) {
  std::vector<PageReceipt> out;
  std::set<std::string> taken;
  const fs::path page = fs::absolute(page_dir);
  for (const std::string& path : receipt_paths) {
    PageReceipt p{path, page_name(path, taken), receipt::read_file(path), {},
                  fs::absolute(path).lexically_relative(page).generic_string()};
    if (p.receipt.schema_id != receipt::schema)
      throw Error(fmt::format("{}: not a tilewise receipt: schema '{}', expected '{}'", path, p.receipt.schema_id,
                              receipt::schema));
    p.verdict = receipt::check_file(path);
    out.push_back(std::move(p));
  }
  return out;
}

std::string render_page(const std::vector<PageReceipt>& receipts) {
  size_t invalid = 0;
  for (const auto& p : receipts) invalid += !p.verdict.valid;
  std::string html = fmt::format(
      R"(<!doctype html><html lang="en"><head><meta charset="utf-8">)"
      // Nothing on this page may be fetched or run: it must read the same from disk, offline, years later.
      R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">)"
      R"(<meta name="viewport" content="width=device-width, initial-scale=1"><title>tilewise report</title>)"
      R"(<style>{}</style></head><body><header><h1>tilewise benchmark report</h1><p class="meta">{} receipt{}{}. )"
      R"(Every figure is read from a receipt; each table row links to that receipt where it lies and names the )"
      R"(entry (<code>results[i]</code>) it came from.</p>)",
      css, receipts.size(), receipts.size() == 1 ? "" : "s",
      invalid ? fmt::format(R"(, <b class="slower">{} INVALID</b>)", invalid) : "");
  html += overview(receipts) + "</header>" + side_by_side_section(receipts) + cross_check_section(receipts);
  for (const auto& p : receipts) html += section(p);
  return html + "</body></html>\n";
}

void write_page(const std::vector<std::string>& receipt_paths, const std::string& out_dir, files::Existing existing) {
  const std::vector<PageReceipt> receipts = load_receipts(receipt_paths, out_dir);
  const fs::path dir(out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
  files::write((dir / "index.html").string(), render_page(receipts), existing);
}

}  // namespace tilewise::report
