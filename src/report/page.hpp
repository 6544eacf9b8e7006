#pragma once
// The report page: a static, self-contained HTML write-up of one or more receipts (inline CSS and SVG, nothing
// fetched), with every figure linked to the receipt copy and the result index it was read from.
#include <string>
#include <vector>

#include "receipt/check.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::report {

// One receipt as the page shows it: parsed, judged by the checker (the page never trusts `valid` alone), and the
// file name its copy has under receipts/, which also names its anchors.
struct PageReceipt {
  std::string path, file;
  receipt::Receipt receipt;
  receipt::FileVerdict verdict;
};

// Throws Error naming the file for one that cannot be read or is not a tilewise receipt. An invalid receipt loads.
std::vector<PageReceipt> load_receipts(const std::vector<std::string>& receipt_paths);

// The whole page, as write_page writes it to index.html.
std::string render_page(const std::vector<PageReceipt>& receipts);

// Writes out_dir/index.html and copies each receipt into out_dir/receipts/.
void write_page(const std::vector<std::string>& receipt_paths, const std::string& out_dir);

}  // namespace tilewise::report
