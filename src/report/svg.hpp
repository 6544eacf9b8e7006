#pragma once
// The report page's drawings as inline SVG: no scripts and no fonts to fetch, so the page opens from disk and
// renders the same in any browser. The drawings know nothing about receipts; page.cpp hands them plain values.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilewise::report {

// Escapes text for HTML and SVG, in element content and in quoted attributes alike.
std::string escape(std::string_view text);

// The colour of the i-th arm, the same in every table and chart of the page.
std::string series_colour(size_t i);

// A bar for a table cell: value / max of the full width, with the value in its tooltip.
std::string inline_bar(double value, double max, const std::string& colour, const std::string& tooltip);

// A grid of speedups: one row per problem, one column per dtype x layout, each cell coloured by its speedup
// (blue faster, red slower, white even) and labelled with it. A cell whose ranges overlap is drawn faint:
// its speedup is not a claim.
struct HeatCell {
  double speedup = 1;
  std::string label;  // as printed, e.g. "1.044+"
  bool claimed = false;
  std::string href, tooltip;
};
struct HeatMap {
  std::vector<std::string> rows, row_notes, columns;
  std::vector<std::vector<std::optional<HeatCell>>> cells;  // [row][column]; empty where nothing was measured
};
std::string heat_map(const HeatMap& map);
std::string heat_legend();

// Ratios against 1 on a log axis that a table's rows share: one row's marks (a dot at the geometric mean, a bar
// over the range over the repeats), and the axis's tick labels for the table's head.
struct RatioAxis {
  double low = 0.9, high = 1.1;  // the ends, padded so that every range and 1 fit
};
RatioAxis ratio_axis(double lowest, double highest);
struct RatioMark {
  double mid = 1, low = 1, high = 1;
  std::string colour, tooltip;
  bool hollow = false;  // drawn as an open diamond, not a dot
};
std::string ratio_strip(const RatioAxis& axis, const std::vector<RatioMark>& marks);
std::string ratio_scale(const RatioAxis& axis);

// Horizontal grouped bars (one group per problem, one bar per series) against a reference drawn as a vertical
// line: each arm's achieved bandwidth against the bandwidth the machine measured.
struct Bar {
  size_t series = 0;  // index into the chart's series, also its colour
  double value = 0;
  std::string text;  // printed after the bar
};
struct BarGroup {
  std::string label, href, tooltip;
  std::vector<Bar> bars;
};
struct BarChart {
  std::vector<std::string> series;
  std::vector<BarGroup> groups;
  std::string unit;
  double reference = 0;
  std::string reference_label;
};
std::string bar_chart(const BarChart& chart);

}  // namespace tilewise::report
