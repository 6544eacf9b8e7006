#include "report/format.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "report/svg.hpp"

namespace tilewise::report {

std::string us_text(double v) { return fmt::format("{:.2f}", v); }
std::string tflops_text(double v) { return fmt::format("{:.1f}", v); }
std::string gbps_text(double v) { return fmt::format("{:.0f}", v); }
std::string speedup_text(double v) { return fmt::format("{:.3f}", v); }
std::string err_text(const std::optional<double>& v) { return v ? fmt::format("{:.2e}", *v) : "-"; }
std::string or_dash(const std::optional<double>& v, std::string (*text)(double)) { return v ? text(*v) : "-"; }
std::string percent_text(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

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

std::string safe_name(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return out;
}

std::string url_path(std::string_view path) {
  std::string out;
  for (const char c : path) {
    const auto b = static_cast<unsigned char>(c);
    if (std::isalnum(b) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') out += c;
    else out += fmt::format("%{:02X}", b);
  }
  return out;
}

std::string text_of(DType d) { return std::string(to_string(d)); }
std::string text_of(Layout l) { return std::string(to_string(l)); }
std::string shape_text(const Problem& p) { return fmt::format("{}x{}x{}", p.M, p.N, p.K); }
std::string case_text(const Problem& p) {
  return fmt::format("{} {} {}", p.name, to_string(p.dtype), to_string(p.layout));
}

std::string stem(const PageReceipt& p) { return std::filesystem::path(p.file).stem().string(); }
std::string result_id(const PageReceipt& p, size_t i) { return fmt::format("{}-r{}", stem(p), i); }
std::string arm_row_id(const PageReceipt& p, size_t i, const std::string& arm) {
  return fmt::format("{}-{}", result_id(p, i), safe_name(arm));
}
std::string anchor_link(const std::string& id, const std::string& text) {
  return fmt::format(R"(<a href="#{}">{}</a>)", id, escape(text));
}

}  // namespace tilewise::report
