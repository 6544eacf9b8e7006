#include "report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace tilewise::report {

namespace {

// Labels are drawn in the page's sans-serif at 12 px; this is wide enough per character for names and shapes.
constexpr double char_w = 7.0;

double label_width(const std::vector<std::string>& labels) {
  size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  return 16 + char_w * double(longest);
}

struct Rgb {
  double r, g, b;
};
constexpr Rgb white{255, 255, 255}, faster{33, 102, 172}, slower{178, 24, 43};

// Speedups saturate at 1.2x either way: the arms compared here differ by percents, and a wider scale would wash
// those out.
double heat_position(double speedup) { return std::clamp(std::log(speedup) / std::log(1.2), -1.0, 1.0); }

std::string heat_colour(double speedup) {
  const double t = heat_position(speedup);
  const Rgb& end = t >= 0 ? faster : slower;
  const double a = std::fabs(t);
  return fmt::format("#{:02x}{:02x}{:02x}", int(std::lround(white.r + a * (end.r - white.r))),
                     int(std::lround(white.g + a * (end.g - white.g))),
                     int(std::lround(white.b + a * (end.b - white.b))));
}

// Dark text on pale cells, white on saturated ones.
const char* heat_text_colour(double speedup, bool claimed) {
  return claimed && std::fabs(heat_position(speedup)) > 0.55 ? "#fff" : "#1d2330";
}

// A tick step of 1, 2 or 5 times a power of ten giving about five ticks.
double tick_step(double max) {
  const double raw = max / 5;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * decade >= raw) return m * decade;
  return 10 * decade;
}

constexpr double strip_w = 240, strip_h = 18;

double strip_x(const RatioAxis& axis, double v) {
  const double t = std::log(std::clamp(v, axis.low, axis.high) / axis.low) / std::log(axis.high / axis.low);
  return 6 + (strip_w - 12) * t;
}

// Round ratios a reader knows, as many as fit 34 px apart (a label is about 30 px wide).
std::vector<double> ratio_ticks(const RatioAxis& axis) {
  std::vector<double> out = {1.0};
  for (double v : {0.95, 1.05, 0.9, 1.1, 0.8, 1.2, 0.67, 1.5, 0.5, 2.0, 3.0, 0.25, 4.0})
    if (v >= axis.low && v <= axis.high && std::none_of(out.begin(), out.end(), [&](double t) {
          return std::fabs(strip_x(axis, v) - strip_x(axis, t)) < 34;
        }))
      out.push_back(v);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

RatioAxis ratio_axis(double lowest, double highest) {
  const double span = std::log(std::max(highest, 1.02) / std::min(lowest, 0.98));
  return {std::exp(std::log(std::min(lowest, 0.98)) - span * 0.05),
          std::exp(std::log(std::max(highest, 1.02)) + span * 0.05)};
}

std::string ratio_strip(const RatioAxis& axis, const std::vector<RatioMark>& marks) {
  std::string svg = fmt::format(R"(<svg class="ratio" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}">)",
                                strip_w, strip_h);
  for (double v : ratio_ticks(axis))
    svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="0" y2="{1:.0f}" class="{2}"/>)", strip_x(axis, v),
                       strip_h, v == 1.0 ? "one" : "grid");
  for (size_t i = 0; i < marks.size(); ++i) {
    const RatioMark& m = marks[i];
    const double y = strip_h * (double(i) + 0.5) / double(marks.size()), x = strip_x(axis, m.mid);
    svg += fmt::format(R"(<g><title>{}</title><line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="{}" )"
                       R"(stroke-width="3" stroke-opacity="0.45"/>)",
                       escape(m.tooltip), strip_x(axis, m.low), std::max(strip_x(axis, m.high), strip_x(axis, m.low) + 1),
                       y, y, m.colour);
    svg += m.hollow ? fmt::format(R"(<path d="M{0:.1f} {1:.1f}l4 4l-4 4l-4 -4z" fill="#fff" stroke="{2}" )"
                                  R"(stroke-width="1.6"/></g>)",
                                  x, y - 4, m.colour)
                    : fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3.6" fill="{}"/></g>)", x, y, m.colour);
  }
  return svg + "</svg>";
}

std::string ratio_scale(const RatioAxis& axis) {
  std::string svg = fmt::format(R"(<svg class="ratio" width="{0:.0f}" height="14" viewBox="0 0 {0:.0f} 14">)", strip_w);
  for (double v : ratio_ticks(axis)) {
    const double x = strip_x(axis, v);  // labels at the ends lean inwards, so that none is cut
    svg += fmt::format(R"(<text x="{:.1f}" y="11" text-anchor="{}" class="note">{:g}x</text>)", x,
                       x < 20 ? "start" : x > strip_w - 20 ? "end" : "middle", v);
  }
  return svg + "</svg>";
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string series_colour(size_t i) {
  static const std::array<const char*, 6> palette = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#9c755f"};
  return palette[i % palette.size()];
}

std::string inline_bar(double value, double max, const std::string& colour, const std::string& tooltip) {
  constexpr double width = 100;
  const double w = max > 0 ? std::clamp(value / max, 0.0, 1.0) * width : 0;
  return fmt::format(
      R"(<svg class="bar" width="{0:.0f}" height="10" viewBox="0 0 {0:.0f} 10"><title>{1}</title>)"
      R"(<rect width="{0:.0f}" height="10" fill="#e8ebf0"/><rect width="{2:.1f}" height="10" fill="{3}"/></svg>)",
      width, escape(tooltip), w, colour);
}

std::string heat_map(const HeatMap& map) {
  constexpr double cell_w = 78, cell_h = 22, head_h = 24;
  std::vector<std::string> labels;
  for (size_t r = 0; r < map.rows.size(); ++r) labels.push_back(map.rows[r] + "  " + map.row_notes[r]);
  const double label_w = label_width(labels);
  const double width = label_w + cell_w * double(map.columns.size()) + 2;
  const double height = head_h + cell_h * double(map.rows.size()) + 2;
  std::string svg =
      fmt::format(R"(<svg class="heatmap" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img">)",
                  width, height);
  for (size_t c = 0; c < map.columns.size(); ++c)
    svg += fmt::format(R"(<text x="{:.1f}" y="16" text-anchor="middle" class="head">{}</text>)",
                       label_w + cell_w * (double(c) + 0.5), escape(map.columns[c]));
  for (size_t r = 0; r < map.rows.size(); ++r) {
    const double y = head_h + cell_h * double(r);
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}<tspan class="note"> {}</tspan></text>)",
                       label_w - 8, y + 15, escape(map.rows[r]), escape(map.row_notes[r]));
    for (size_t c = 0; c < map.columns.size(); ++c) {
      const double x = label_w + cell_w * double(c);
      const auto& cell = map.cells[r][c];
      if (!cell) {
        svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" class="empty"/>)"
                           R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" class="note">no result</text>)",
                           x, y, cell_w - 2, cell_h - 2, x + cell_w / 2, y + 15);
        continue;
      }
      svg += fmt::format(
          R"(<a href="{}"><title>{}</title>)"
          R"(<rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" fill="{}" fill-opacity="{}"/>)"
          R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" fill="{}">{}</text></a>)",
          escape(cell->href), escape(cell->tooltip), x, y, cell_w - 2, cell_h - 2, heat_colour(cell->speedup),
          cell->claimed ? "1" : "0.35", x + cell_w / 2 - 1, y + 15, heat_text_colour(cell->speedup, cell->claimed),
          escape(cell->label));
    }
  }
  return svg + "</svg>";
}

std::string heat_legend() {
  constexpr double box_w = 62;
  const std::array<double, 7> stops = {1 / 1.2, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2};
  std::string svg = fmt::format(R"(<svg class="legend" width="{0:.0f}" height="22" viewBox="0 0 {0:.0f} 22">)",
                                box_w * double(stops.size() + 1) + 60);
  for (size_t i = 0; i < stops.size(); ++i)
    svg += fmt::format(R"(<rect x="{0:.0f}" y="0" width="{1:.0f}" height="20" fill="{2}"/>)"
                       R"(<text x="{3:.0f}" y="14" text-anchor="middle" fill="{4}">{5:.3f}x</text>)",
                       box_w * double(i), box_w - 2, heat_colour(stops[i]), box_w * (double(i) + 0.5),
                       heat_text_colour(stops[i], true), stops[i]);
  const double x = box_w * double(stops.size()) + 12;
  svg += fmt::format(R"(<rect x="{:.0f}" y="0" width="{:.0f}" height="20" fill="{}" fill-opacity="0.35"/>)"
                     R"(<text x="{:.0f}" y="14" text-anchor="middle">1.050~ overlap</text>)",
                     x, box_w + 40, heat_colour(1.05), x + (box_w + 40) / 2);
  return svg + "</svg>";
}

std::string bar_chart(const BarChart& chart) {
  constexpr double plot_w = 560, text_w = 150, bar_h = 10, group_gap = 10, head_h = 34;
  std::vector<std::string> labels;
  double max = chart.reference;
  for (const auto& g : chart.groups) {
    labels.push_back(g.label);
    for (const auto& b : g.bars) max = std::max(max, b.value);
  }
  const double step = tick_step(max > 0 ? max : 1);
  const double axis_max = step * std::ceil(max / step * 1.02);
  const double label_w = label_width(labels);
  const auto x_of = [&](double v) { return label_w + plot_w * v / axis_max; };

  double plot_h = 0;
  for (const auto& g : chart.groups) plot_h += bar_h * double(std::max<size_t>(g.bars.size(), 1)) + group_gap;
  const double legend_y = head_h + plot_h + 14;
  const double width = label_w + plot_w + text_w, height = legend_y + 12;
  std::string svg =
      fmt::format(R"(<svg class="barchart" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img">)",
                  width, height);
  for (double v = 0; v <= axis_max + step / 2; v += step)
    svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.0f}" y2="{2:.1f}" class="grid"/>)"
                       R"(<text x="{0:.1f}" y="{3:.0f}" text-anchor="middle" class="note">{4:.0f}</text>)",
                       x_of(v), head_h - 4, head_h + plot_h, head_h - 8, v);
  svg += fmt::format(R"(<text x="{:.0f}" y="{:.0f}" text-anchor="end" class="note">{}</text>)", label_w - 8, head_h - 8,
                     escape(chart.unit));

  double y = head_h;
  for (const auto& g : chart.groups) {
    svg += fmt::format(R"(<a href="{}"><title>{}</title><text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)",
                       escape(g.href), escape(g.tooltip), label_w - 8,
                       y + bar_h * double(std::max<size_t>(g.bars.size(), 1)) / 2 + 4, escape(g.label));
    for (const auto& b : g.bars) {
      svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.0f}" fill="{}"/>)"
                         R"(<text x="{:.1f}" y="{:.1f}" class="value">{}</text>)",
                         label_w, y, x_of(b.value) - label_w, bar_h - 1, series_colour(b.series), x_of(b.value) + 4,
                         y + bar_h - 1, escape(b.text));
      y += bar_h;
    }
    if (g.bars.empty()) y += bar_h;
    svg += "</a>";
    y += group_gap;
  }
  const double ref_x = x_of(chart.reference);
  svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.0f}" y2="{2:.1f}" class="reference"/>)"
                     R"(<text x="{0:.1f}" y="10" text-anchor="middle" class="reference">{3}</text>)",
                     ref_x, head_h - 14, head_h + plot_h, escape(chart.reference_label));
  double lx = label_w;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    svg += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="10" height="10" fill="{}"/><text x="{:.1f}" y="{:.1f}">{}</text>)", lx,
        legend_y - 9, series_colour(s), lx + 14, legend_y, escape(chart.series[s]));
    lx += 28 + char_w * double(chart.series[s].size());
  }
  return svg + "</svg>";
}

}  // namespace tilewise::report
