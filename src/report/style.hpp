#pragma once
// The report page's style sheet: inline, and only the browser's own fonts, so the page opens from disk with nothing
// to fetch.
namespace tilewise::report {

extern const char* const page_style;

}  // namespace tilewise::report
