#include "report/tabular.hpp"

#include <fmt/format.h>

#include "report/svg.hpp"

namespace tilewise::report {

namespace {

std::string attribute(const char* name, const std::string& value) {
  return value.empty() ? "" : fmt::format(R"( {}="{}")", name, escape(value));
}

std::string cell_html(const Cell& c, const char* tag, size_t rowspan) {
  return fmt::format("<{0}{1}{2}{3}{4}{5}>{6}</{0}>", tag, attribute("id", c.id), attribute("class", c.cls),
                     attribute("title", c.title), c.colspan > 1 ? fmt::format(R"( colspan="{}")", c.colspan) : "",
                     rowspan > 1 ? fmt::format(R"( rowspan="{}")", rowspan) : "",
                     c.html.empty() ? escape(c.text) : c.html);
}

std::string row_html(const Table& t, const Row& r, size_t first_cell, size_t rowspan) {
  std::string html = "<tr" + attribute("id", r.id) + attribute("class", r.cls);
  for (const auto& [name, value] : r.data) html += attribute(("data-" + name).c_str(), value);
  html += ">";
  for (size_t c = first_cell; c < r.cells.size(); ++c)
    html += cell_html(r.cells[c], "td", c < t.joined ? rowspan : 1);
  return html + "</tr>";
}

// The file's cells of a row: page-only columns left out, a spanning cell's text in the first column it keeps and
// the others empty.
std::vector<std::string> file_cells(const Table& t, const std::vector<Cell>& cells) {
  std::vector<std::string> out;
  size_t column = 0;
  for (const Cell& c : cells) {
    bool placed = false;
    for (int k = 0; k < c.colspan; ++k, ++column)
      if (column >= t.head.size() || !t.head[column].page_only) {
        out.push_back(placed ? "" : c.text);
        placed = true;
      }
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos && (s.empty() || (s.front() != ' ' && s.back() != ' ')))
    return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string markdown_field(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' || c == '\r' ? std::string(" ") : std::string(1, c);
  return out;
}

template <class Field>
std::string line(const std::vector<std::string>& cells, Field field, const char* open, const char* sep,
                 const char* close) {
  std::string out = open;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? sep : "") + field(cells[i]);
  return out + close;
}

}  // namespace

std::string table_file(const Table& t, const char* extension) { return fmt::format("tables/{}.{}", t.name, extension); }

std::set<std::string> linked_table_files(std::string_view html) {
  constexpr std::string_view link = R"(href="tables/)";
  std::set<std::string> out;
  for (size_t at = html.find(link); at != std::string_view::npos; at = html.find(link, at)) {
    at += link.size();
    const size_t end = html.find('"', at);
    if (end == std::string_view::npos) break;
    const std::string_view name = html.substr(at, end - at);
    // A table's name holds letters, digits, '-', '_' and '.': anything else is no link table_html wrote.
    if (!name.empty() && name != "." && name != ".." && name.find_first_of("/\\&<>") == std::string_view::npos)
      out.emplace(name);
  }
  return out;
}

std::string table_html(const Table& t) {
  std::string html = fmt::format(R"(<div class="scroll"><table id="table-{}"{}><caption>{}{})"
                                 R"(<span class="files"><a href="{}">CSV</a> &middot; <a href="{}">markdown</a></span>)"
                                 R"(</caption><thead><tr>)",
                                 t.name, attribute("class", t.cls), t.caption_html, t.caption_html.empty() ? "" : " ",
                                 table_file(t, "csv"), table_file(t, "md"));
  for (Cell c : t.head) {
    if (c.page_only) c.cls += c.cls.empty() ? "drawing" : " drawing";  // so that a reader of the page can skip it
    html += cell_html(c, "th", 1);
  }
  html += "</tr></thead>";
  bool plain_open = false;
  for (size_t i = 0; i < t.rows.size();) {
    const Row& r = t.rows[i];
    if (r.group.empty()) {
      if (!plain_open) html += "<tbody>";
      plain_open = true;
      html += row_html(t, r, 0, 1);
      ++i;
      continue;
    }
    if (plain_open) html += "</tbody>";
    plain_open = false;
    size_t end = i + 1;
    while (end < t.rows.size() && t.rows[end].group == r.group) ++end;
    html += fmt::format(R"(<tbody id="{}">)", escape(r.group)) + row_html(t, r, 0, end - i);
    for (size_t k = i + 1; k < end; ++k) html += row_html(t, t.rows[k], t.joined, 1);
    html += "</tbody>";
    i = end;
  }
  if (plain_open) html += "</tbody>";
  return html + "</table></div>";
}

std::string add_table(std::vector<Table>& tables, Table t) {
  std::string html = table_html(t);
  tables.push_back(std::move(t));
  return html;
}

std::string table_csv(const Table& t) {
  std::string out = line(file_cells(t, t.head), csv_field, "", ",", "\n");
  for (const Row& r : t.rows) out += line(file_cells(t, r.cells), csv_field, "", ",", "\n");
  return out;
}

std::string table_markdown(const Table& t) {
  const std::vector<std::string> head = file_cells(t, t.head);
  std::string out = line(head, markdown_field, "| ", " | ", " |\n");
  out += line(std::vector<std::string>(head.size(), "---"), markdown_field, "|", "|", "|\n");
  for (const Row& r : t.rows) out += line(file_cells(t, r.cells), markdown_field, "| ", " | ", " |\n");
  return out;
}

}  // namespace tilewise::report
