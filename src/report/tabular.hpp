#pragma once
// Every table of the report page is also written as CSV and markdown beside it (tables/<name>.csv and .md): one
// description of the table, three renderings, so the files cannot drift from what the page shows.
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilewise::report {

struct Cell {
  std::string text;  // plain text: the CSV and markdown cell, and on the page (escaped) where `html` is empty
  std::string html;  // the page's markup, where it differs from the text
  std::string id, cls, title;  // title in plain text
  int colspan = 1;             // the files repeat no text: the spanned columns are empty there
  bool page_only = false;      // in a head cell: the column is a drawing, left out of the files
};

struct Row {
  std::string id, cls;
  // Rows with the same non-empty group share a <tbody id="group">, and the table's first `joined` cells are the
  // group's first row's, spanning down on the page (the files repeat them on every row).
  std::string group;
  std::vector<std::pair<std::string, std::string>> data;  // data-NAME="value" attributes on the page, plain text
  std::vector<Cell> cells;
};

struct Table {
  std::string name;  // unique on the page: its files and its id ("table-<name>"); letters, digits, '-', '_', '.'
  std::string cls, caption_html;
  std::vector<Cell> head;
  std::vector<Row> rows;
  size_t joined = 0;
};

std::string table_html(const Table& t);  // with links to its files in the caption
// The table's HTML, keeping the table in `tables` for its files.
std::string add_table(std::vector<Table>& tables, Table t);
std::string table_csv(const Table& t);
std::string table_markdown(const Table& t);
std::string table_file(const Table& t, const char* extension);  // "tables/<name>.<extension>", from the page
// The names of the files under tables/ that a page's HTML links, as table_html links them: the tables that page
// wrote ("receipts.csv", "receipts.md", ...).
std::set<std::string> linked_table_files(std::string_view html);

}  // namespace tilewise::report
