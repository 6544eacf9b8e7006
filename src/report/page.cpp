#include "report/page.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <stdio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/json.hpp"
#include "report/current.hpp"
#include "report/first_screen.hpp"
#include "report/format.hpp"
#include "report/joined.hpp"
#include "report/receipt_section.hpp"
#include "report/scrub.hpp"
#include "report/style.hpp"
#include "report/supersede.hpp"
#include "report/svg.hpp"

namespace tilewise::report {

namespace {

namespace fs = std::filesystem;

Cell receipt_cell(const PageReceipt& p) {
  return {p.file, anchor_link(stem(p), p.file)};
}

Cell verdict_cell(const PageReceipt& p) {
  return p.verdict.valid ? Cell{"valid", "", "", "valid"}
                         : Cell{fmt::format("INVALID ({})", p.verdict.problems.size()), "", "", "invalid-cell"};
}

Table receipt_index(const std::vector<PageReceipt>& receipts, const std::vector<bool>& superseded) {
  Table t{"receipts", "overview", "",
          {{"receipt"}, {"check"}, {"created"}, {"GPU"}, {"buffers"}, {"results"}, {"skipped"}, {"speedups"}},
          {}};
  for (size_t i = 0; i < receipts.size(); ++i) {
    if (superseded[i]) continue;
    const PageReceipt& p = receipts[i];
    const receipt::Receipt& r = p.receipt;
    std::string text, html;
    for (const std::string& s : arm_summaries(r)) {
      text += (text.empty() ? "" : "; ") + s;
      html += escape(s) + "<br>";
    }
    t.rows.push_back({"", "", "", {},
                      {receipt_cell(p), verdict_cell(p), {r.created}, {r.machine.gpu},
                       {r.protocol.cold ? "cold" : "warm"},
                       {std::to_string(r.results.size()), "", "", "num"},
                       {std::to_string(r.skipped.size()), "", "", "num"},
                       {text, html}}});
  }
  return t;
}

// Superseded receipts are only listed: their files stay linked, and the receipt that replaced them is on the page.
std::string superseded_list(const std::vector<PageReceipt>& receipts, const std::vector<std::optional<size_t>>& by,
                            std::vector<Table>& tables) {
  Table t{"superseded", "overview", "", {{"receipt"}, {"created"}, {"check"}, {"superseded by"}}, {}};
  for (size_t i = 0; i < receipts.size(); ++i) {
    if (!by[i]) continue;
    const PageReceipt &p = receipts[i], &newer = receipts[*by[i]];
    t.rows.push_back({"superseded-" + stem(p), "", "", {{"receipt", p.href}, {"by", newer.href}},
                      {{p.file, fmt::format(R"(<a href="{}">{}</a>)", escape(p.href), escape(p.file))},
                       {p.receipt.created},
                       verdict_cell(p),
                       receipt_cell(newer)}});
  }
  if (t.rows.empty()) return "";
  const size_t n = t.rows.size();
  return fmt::format(R"(<details id="superseded"><summary>Superseded ({} receipts): older runs of the same )"
                     R"(measurement (tool, GPU, buffers, suites, arms and problems), linked but not shown</summary>{})"
                     R"(</details>)",
                     n, add_table(tables, std::move(t)));
}

// The receipt's name on the page names its anchors, so it must be unique there. A compressed receipt (x.json.gz) is
// named as its plain file would be (x.json): compressing a committed receipt moves none of its anchors.
std::string page_name(const std::string& path, std::set<std::string>& taken) {
  const std::string base = safe_name(document_stem(path));
  std::string name = base + ".json";
  for (int n = 2; !taken.insert(name).second; ++n) name = fmt::format("{}-{}.json", base, n);
  return name;
}

}  // namespace

std::vector<PageReceipt> load_receipts(const std::vector<std::string>& receipt_paths, const std::string& page_dir) {
  std::vector<PageReceipt> out;
  std::set<std::string> taken;
  const fs::path page = fs::absolute(page_dir);
  for (const std::string& path : receipt_paths) {
    PageReceipt p{path, page_name(path, taken), receipt::read_file(path), {},
                  url_path(fs::absolute(path).lexically_relative(page).generic_string())};
    p.verdict = receipt::check_file(path);
    drop_temporary_folders(p.receipt, path);
    for (std::string& problem : p.verdict.problems) problem = without_temporary_folders(problem);
    out.push_back(std::move(p));
  }
  return out;
}

Page render_page(const std::vector<PageReceipt>& all) {
  const std::vector<std::optional<size_t>> by = superseded_by(all);
  std::vector<bool> superseded(all.size());
  std::vector<PageReceipt> shown;  // the receipts no newer one supersedes, in the order given
  for (size_t i = 0; i < all.size(); ++i) {
    superseded[i] = by[i].has_value();
    if (!superseded[i]) shown.push_back(all[i]);
  }
  const size_t invalid =
      size_t(std::count_if(shown.begin(), shown.end(), [](const PageReceipt& p) { return !p.verdict.valid; }));
  Page page;
  std::string html = fmt::format(
      R"(<!doctype html><html lang="en"><head><meta charset="utf-8">)"
      // Nothing on this page may be fetched or run: it must read the same from disk, offline, years later.
      R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">)"
      R"(<meta name="viewport" content="width=device-width, initial-scale=1"><title>tilewise report</title>)"
      R"(<style>{}</style></head><body><header><h1>tilewise: how much faster, on which problems</h1>)"
      R"(<nav class="meta">{} receipt{}{}{} &middot; <a href="#cliff">alignment cliff</a> &middot; )"
      R"(<a href="#decode">decode against bandwidth</a> &middot; <a href="#rest">every receipt</a></nav></header>)",
      page_style, shown.size(), shown.size() == 1 ? "" : "s",
      invalid ? fmt::format(R"(, <b class="slower">{} INVALID</b>)", invalid) : "",
      all.size() > shown.size() ? fmt::format(R"(, <a href="#superseded">{} superseded</a>)", all.size() - shown.size())
                                : "");
  html += first_screen(current_headline(eligible_receipts(all, superseded)), page.tables);
  html += R"(<section id="rest"><h2>Every receipt</h2><p class="meta">Every figure is read from a receipt; each )"
          R"(table row links to that receipt where it lies and names the entry (<code>results[i]</code>) it came )"
          R"(from.</p>)" +
          add_table(page.tables, receipt_index(all, superseded));
  html += superseded_list(all, by, page.tables) + "</section>";
  html += side_by_side_section(shown, page.tables);
  html += cross_check_section(shown, page.tables);
  for (const PageReceipt& p : shown) html += receipt_section(p, page.tables);
  page.html = html + "</body></html>\n";
  return page;
}

namespace {

// The tables the page at `index` wrote (those its index.html links), or none where there is no page yet.
std::set<std::string> previous_tables(const fs::path& index) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(index, ec))) return {};
  return linked_table_files(files::read(index.string()));
}

// tables/ is the page's own folder, replaced whole: an entry the previous page did not write there (a user's notes,
// a folder) is refused by name rather than deleted with it.
void refuse_foreign_tables(const fs::path& tables, const fs::path& index) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(tables, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw Error(fmt::format("{}: is not a folder, where the page keeps its tables; move it away first", tables.string()));
  const std::set<std::string> ours = previous_tables(index);
  std::vector<std::string> foreign;
  for (const fs::directory_entry& e : fs::directory_iterator(tables)) {
    const std::string name = e.path().filename().string();
    if (!ours.count(name) || !e.is_regular_file(ec) || e.is_symlink(ec)) foreign.push_back(name);
  }
  if (foreign.empty()) return;
  std::sort(foreign.begin(), foreign.end());
  const size_t more = foreign.size() - 1;
  throw Error(fmt::format("{}: not one of the page's tables ({} does not link it){}; the page replaces its tables "
                          "folder whole, so move what is yours out of it first",
                          (tables / foreign.front()).string(), index.string(),
                          more ? fmt::format(", nor {} more entr{} there", more, more == 1 ? "y" : "ies") : ""));
}

// Moves `from` to `to` in one rename, replacing the file at `to`.
void move_entry(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw Error(fmt::format("{}: cannot move it to {} ({})", from.string(), to.string(), std::strerror(errno)));
}

// Puts the folder `staged` at `live`, and returns where the folder that was at `live` is now (none where there was
// none). Where the file system cannot exchange two names at once, by two renames, the first undone if the second
// fails.
std::optional<fs::path> swap_folder(const fs::path& staged, const fs::path& live, const fs::path& aside) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(live, ec))) {
    move_entry(staged, live);
    return std::nullopt;
  }
  if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, live.c_str(), RENAME_EXCHANGE) == 0) return staged;
  if (errno != EINVAL && errno != ENOSYS)
    throw Error(fmt::format("{}: cannot move it to {} ({})", staged.string(), live.string(), std::strerror(errno)));
  move_entry(live, aside);
  try {
    move_entry(staged, live);
  } catch (const Error&) {
    move_entry(aside, live);
    throw;
  }
  return aside;
}

// A folder beside the page for the new page, removed with whatever it holds at the end (the new page's files, if
// they could not all be written; the previous page's tables, once the new ones took their place).
class Staging {
 public:
  explicit Staging(const fs::path& page_dir)
      : path_(page_dir / fmt::format(".tilewise-page-{}", files::random_hex())) {
    std::error_code ec;
    if (!fs::create_directory(path_, ec) || ec)
      throw Error(fmt::format("{}: cannot make a folder for the new page ({})", path_.string(),
                              ec ? ec.message() : "it exists"));
  }
  ~Staging() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

void write_page(const std::vector<std::string>& receipt_paths, const std::string& out_dir, files::Existing existing) {
  const fs::path dir(out_dir), index = dir / "index.html", tables = dir / "tables";
  files::refuse_repeated_inputs(receipt_paths);  // one receipt twice would read as superseded by itself
  // The page's own folder is made; a folder above it that is missing is a mistyped path, as for a file's writer.
  fs::path folder = fs::absolute(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // "page/" names the folder page
  const fs::path parent = folder.parent_path();
  if (!fs::is_directory(parent))
    throw Error(fmt::format("{}: its folder {} does not exist", out_dir, parent.string()));
  const fs::path tables_at = fs::weakly_canonical(tables);
  for (const std::string& path : receipt_paths) {
    const fs::path p = fs::weakly_canonical(path);
    const fs::path below = p.lexically_relative(tables_at);  // the page replaces its tables/ folder whole
    if (p == fs::weakly_canonical(index) || (!below.empty() && *below.begin() != ".."))
      throw Error(fmt::format("{}: the page would replace this receipt; write it into another folder", path));
  }
  for (const fs::path& output : {index, tables})
    if (files::exists(output.string(), "the page") && existing == files::Existing::refuse)
      throw Error(fmt::format("{} exists; give --overwrite to replace the page", output.string()));
  if (fs::is_directory(dir))  // a folder or a FIFO at index.html is named
    files::check_output(index.string(), files::Existing::replace);
  refuse_foreign_tables(tables, index);
  const std::vector<PageReceipt> receipts = load_receipts(receipt_paths, out_dir);
  const Page page = render_page(receipts);
  std::set<std::string> names;
  for (const Table& t : page.tables)
    if (!names.insert(t.name).second) throw Error(fmt::format("the page has two tables named {}", t.name));

  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create directory: {}", out_dir, ec.message()));
  // The new page is written aside and swapped in only once every file of it is written, so a failure (a full disk)
  // leaves the previous page whole: never its tables deleted under an index.html that links them.
  const Staging stage(dir);
  try {
    fs::create_directory(stage.path() / "tables");
    for (const Table& t : page.tables) {
      files::write((stage.path() / table_file(t, "csv")).string(), table_csv(t), files::Existing::refuse);
      files::write((stage.path() / table_file(t, "md")).string(), table_markdown(t), files::Existing::refuse);
    }
    files::write((stage.path() / "index.html").string(), page.html, files::Existing::refuse);
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: the new page could not be written, and the page there is as it was: {}", out_dir,
                            e.what()));
  }
  // Two renames, tables/ then index.html, and nothing deleted before both are done: only a crash between the two
  // leaves the previous index.html over the new tables.
  const std::optional<fs::path> previous = swap_folder(stage.path() / "tables", tables, stage.path() / "previous");
  try {
    move_entry(stage.path() / "index.html", index);
  } catch (const Error&) {
    try {  // the previous tables back under the previous index.html, as far as a rename can
      if (previous) swap_folder(*previous, tables, stage.path() / "new");
      else move_entry(tables, stage.path() / "new");
    } catch (const Error&) {
    }
    throw;
  }
}

}  // namespace tilewise::report
