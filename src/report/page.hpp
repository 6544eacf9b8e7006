#pragma once
// The report page: a static, self-contained HTML write-up of receipts (inline CSS and SVG, nothing fetched). Its
// first screen answers how much faster, on which problems (report/first_screen.hpp); then every receipt that a
// newer one does not supersede, with every figure linked to the receipt it was read from, where that receipt lies,
// and its result index. Every table is also written as CSV and markdown beside the page.
#include <string>
#include <vector>

#include "core/file.hpp"
#include "receipt/check.hpp"
#include "receipt/receipt.hpp"
#include "report/tabular.hpp"

namespace tilewise::report {

// One receipt as the page shows it: parsed, without temporary folders (report/scrub.hpp), judged by the checker
// (the page never trusts `valid` alone), a file name unique on the page that names its anchors, and the link to the
// receipt itself (its path from the page's folder).
struct PageReceipt {
  std::string path, file;
  receipt::Receipt receipt;
  receipt::FileVerdict verdict;
  std::string href;
};

// For a page written into page_dir. Throws Error naming the file for one that cannot be read or is not a tilewise
// receipt. An invalid receipt loads.
std::vector<PageReceipt> load_receipts(const std::vector<std::string>& receipt_paths, const std::string& page_dir);

struct Page {
  std::string html;           // index.html
  std::vector<Table> tables;  // every table on it, for tables/<name>.csv and .md
};
Page render_page(const std::vector<PageReceipt>& receipts);

// Writes out_dir/index.html and out_dir/tables/, linking each receipt where it lies: a page in the repository links
// the committed receipts, and no copy of them doubles the checkout (the GPU machine takes at most 64 MiB of it).
// Refuses an existing page unless Existing::replace, any receipt that an output would replace, a receipt given
// twice, and a page folder whose own folder does not exist.
// Replacing: tables/ is the page's own folder and is replaced whole, so a table the new page lacks does not stay
// behind. Whatever else is in it (a file the previous index.html does not link, a folder) is a user's, and the call
// refuses naming it rather than delete it; nothing else in out_dir is touched. The new page is written into a
// temporary folder beside it and swapped in (tables/, then index.html) only once every file is written, so a failed
// write leaves the previous page as it was.
void write_page(const std::vector<std::string>& receipt_paths, const std::string& out_dir,
                files::Existing existing = files::Existing::refuse);

}  // namespace tilewise::report
