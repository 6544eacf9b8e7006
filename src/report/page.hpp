#pragma once
// The report page: a static, self-contained HTML write-up of one or more receipts (inline CSS and SVG, nothing
// fetched), with every figure linked to the receipt it was read from, where that receipt lies, and its result index.
#include <string>
#include <vector>

#include "core/file.hpp"
#include "receipt/check.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::report {

// One receipt as the page shows it: parsed, judged by the checker (the page never trusts `valid` alone), a file name
// unique on the page that names its anchors, and the link to the receipt itself (its path from the page's folder).
struct PageReceipt {
  std::string path, file;
  receipt::Receipt receipt;
  receipt::FileVerdict verdict;
  std::string href;
};

// For a page written into page_dir. Throws Error naming the file for one that cannot be read or is not a tilewise
// receipt. An invalid receipt loads.
std::vector<PageReceipt> load_receipts(const std::vector<std::string>& receipt_paths, const std::string& page_dir);

// The whole page, as write_page writes it to index.html.
std::string render_page(const std::vector<PageReceipt>& receipts);

// Writes out_dir/index.html, which links each receipt where it lies: a page in the repository links the committed
// receipts, and no copy of them doubles the checkout (the GPU machine takes at most 64 MiB of it). An existing page
// is replaced only under Existing::replace.
void write_page(const std::vector<std::string>& receipt_paths, const std::string& out_dir,
                files::Existing existing = files::Existing::replace);

}  // namespace tilewise::report
