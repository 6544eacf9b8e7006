#pragma once
// Reading the rendered page in tests: one element's markup, and containment with a readable failure.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace tilewise::testkit {

// The markup of the element with this id, from its opening tag to its closing one (rows and results do not nest).
inline std::string element(const std::string& html, const std::string& tag, const std::string& id) {
  const size_t start = html.find(fmt::format(R"(<{} id="{}")", tag, id));
  if (start == std::string::npos) return "";
  return html.substr(start, html.find(fmt::format("</{}>", tag), start) - start);
}

inline ::testing::AssertionResult HtmlContains(const std::string& html, const std::string& part) {
  if (html.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not found in:\n" << html.substr(0, 3000);
}

}  // namespace tilewise::testkit
