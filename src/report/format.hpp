#pragma once
// How the report page writes figures and names: one format per quantity, so a figure reads the same in every table
// and chart, ids and file names that need no escaping, and the anchors of receipts, results and arms on the page.
#include <optional>
#include <string>
#include <string_view>

#include "core/problem.hpp"
#include "report/page.hpp"

namespace tilewise::report {

std::string us_text(double v);       // 12.34
std::string tflops_text(double v);   // 712.3
std::string gbps_text(double v);     // 4211
std::string speedup_text(double v);  // 1.044 (every ratio)
std::string err_text(const std::optional<double>& v);
std::string or_dash(const std::optional<double>& v, std::string (*text)(double));
std::string bytes_text(int64_t b);   // 50 MiB
std::string percent_text(double fraction);  // 87%

// The claim rule's verdict ("faster", "slower", "none") as a word, a mark after a speedup, and a CSS class.
const char* claim_word(const std::string& claim);
const char* claim_mark(const std::string& claim);
const char* claim_class(const std::string& claim);

// Letters, digits, '-', '_' and '.' kept; anything else '_'.
std::string safe_name(std::string_view s);
// A relative path as a link's target: letters, digits, '-', '_', '.', '~' and '/' kept, every other byte as %XX (a '#'
// or '?' in a receipt's file name would otherwise end the path).
std::string url_path(std::string_view path);

std::string text_of(DType d);   // to_string's, as a std::string for a table cell
std::string text_of(Layout l);
std::string shape_text(const Problem& p);  // MxNxK
std::string case_text(const Problem& p);   // name dtype layout

// Anchors: a receipt's section is its file's stem; results[i] is "<stem>-r<i>"; an arm's row in it adds the arm.
std::string stem(const PageReceipt& p);
std::string result_id(const PageReceipt& p, size_t i);
std::string arm_row_id(const PageReceipt& p, size_t i, const std::string& arm);
// <a href="#id">text</a>, the text escaped: a link to a place on the page.
std::string anchor_link(const std::string& id, const std::string& text);

}  // namespace tilewise::report
