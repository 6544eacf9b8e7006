#!/usr/bin/env python3
"""Checks the report page as Chromium rendered it (its DOM) against the receipts it was built from, read here with
python's json module and formatted as the page formats them, and against `tilewise headline` and `tilewise check`:
  - the first screen: every headline, cliff and earlier row's figures are what `tilewise headline --by-dtype` prints
    for the row's receipts, its ranges over the repeats are recomputed from the receipts, no row on cuBLASLt's
    alignment cliff is in the headline, and every eligible receipt's every row is on the page;
  - superseded receipts: the page's list is exactly the receipts a newer valid one measured again;
  - every shown receipt's figures in the row of the arm they belong to; the side-by-side and cross-check tables;
  - every table's CSV and markdown files carry the figures the page shows;
  - no temporary folder of the GPU machine anywhere.
  page_check.py TILEWISE_BIN PAGE_DIR DOM_HTML RECEIPT...
"""
import csv, gzip, html.parser, json, math, os, re, subprocess, sys
from datetime import datetime

bin_, page_dir, dom_path, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
failures, checked = [], 0


def expect(where, text, figure):
    global checked
    checked += 1
    if not re.search(r"(?<![\d.])" + re.escape(figure) + r"(?![\d])", text or ""):
        failures.append(f"{where}: {figure!r} not in the rendered text {(text or '(element missing)')[:300]!r}")


def require(where, ok, what):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{where}: {what}")


class Dom(html.parser.HTMLParser):
    """The visible text of every element with an id (tooltips left out, chunks separated by ' | '), and every table:
    its head and its rows as cells (text, class, colspan, rowspan), with each row's id and data- attributes."""
    void = {"br", "meta", "img", "hr", "input", "link", "col", "wbr"}

    def __init__(self):
        super().__init__()
        self.open, self.text, self.tables, self.table, self.cell = [], {}, {}, None, None

    def handle_starttag(self, tag, attrs):
        if tag in self.void: return
        a = dict(attrs)
        self.open.append((tag, a.get("id")))
        if tag == "table" and a.get("id", "").startswith("table-"):
            self.table = self.tables[a["id"][len("table-"):]] = {"head": [], "rows": []}
        elif self.table is not None and tag == "tr":
            self.row = {"id": a.get("id"), "data": {k[5:]: v for k, v in attrs if k.startswith("data-")}, "cells": []}
            (self.table["head"] if any(t == "thead" for t, _ in self.open) else self.table["rows"]).append(self.row)
        elif self.table is not None and tag in ("td", "th"):
            self.cell = {"text": "", "class": a.get("class") or "", "colspan": int(a.get("colspan", 1)),
                         "rowspan": int(a.get("rowspan", 1))}
            self.row["cells"].append(self.cell)

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag: pass
        if tag == "table": self.table = None
        if tag in ("td", "th"): self.cell = None

    def handle_data(self, data):
        if any(tag == "title" for tag, _ in self.open): return
        for _, id in self.open:
            if id: self.text[id] = self.text.get(id, "") + data + " | "
        if self.cell is not None: self.cell["text"] += data + " "  # <br> and the like read as a space


raw_dom = open(dom_path, encoding="utf-8").read()
dom = Dom()
dom.feed(raw_dom)
flat = lambda text: text and re.sub(r"\s*\|\s*", " ", text)  # element boundaries read as one space
words = lambda text: re.sub(r"\s+", " ", text).strip()


def grid(table):
    """Each row's cells as the table's files have them: drawings left out, a cell joined down from a group's first
    row repeated, a spanning cell's text in its first column and the others empty."""
    head = table["head"][0]["cells"]
    drawing = [("drawing" in c["class"]) for c in head for _ in range(c["colspan"])]
    spans, out = {}, []  # column -> [cell, rows still to span]
    for row in table["rows"]:
        cells, column, queue = [], 0, list(row["cells"])
        while column < len(drawing):
            if spans.get(column, [None, 0])[1] > 0:
                cell = spans[column][0]
                spans[column][1] -= 1
            elif queue:
                cell = queue.pop(0)
                if cell["rowspan"] > 1: spans[column] = [cell, cell["rowspan"] - 1]
            else: break
            placed = False
            for k in range(cell["colspan"]):
                if column + k < len(drawing) and not drawing[column + k]:
                    cells.append("" if placed else words(cell["text"]))
                    placed = True
            column += cell["colspan"]
        out.append(cells)
    return out


def csv_rows(name):
    return list(csv.reader(open(os.path.join(page_dir, "tables", name + ".csv"), encoding="utf-8", newline="")))

# --- no temporary folder of the GPU machine anywhere (report/scrub.hpp: a path under one reads as its file name) ---
DELIMITERS = " \t\r\n,;:='\"()<>[]{}"
def scrub(text):
    def one(m):
        t = m.group(0)
        if not (t.startswith("/tmp/") or t.startswith("round-state/") or "/tmp/" in t or "/round-state/" in t):
            return t
        return t.rstrip("/").rsplit("/", 1)[-1]
    return re.sub("[^" + re.escape(DELIMITERS) + "]+", one, text)

table_files = sorted(os.listdir(os.path.join(page_dir, "tables")))
for name, text in [("the DOM", raw_dom)] + [(f, open(os.path.join(page_dir, "tables", f), encoding="utf-8").read())
                                             for f in table_files]:
    for bad in ("/tmp/", "round-state"):
        require(name, bad not in text, f"names a temporary folder ({bad}) at ...{text[max(0, text.find(bad) - 80):text.find(bad) + 40]!r}")

# --- the receipts, the checker's verdicts and the page's superseded list ---
receipts = {}  # absolute path -> receipt
for p in paths:  # the large committed receipts are stored compressed (x.json.gz)
    with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f: receipts[os.path.abspath(p)] = json.load(f)
verdicts = {}
out = subprocess.run([bin_, "check", *paths], capture_output=True, text=True).stdout
for line in out.splitlines():
    m = re.match(r"(valid|INVALID)\s+(\S.*?)(?: \(\d+ results?\))?$", line)
    if m: verdicts[os.path.abspath(m.group(2))] = m.group(1) == "valid"
require("tilewise check", set(verdicts) == set(receipts), f"judged {len(verdicts)} of {len(receipts)} receipts")
href_path = lambda href: os.path.abspath(os.path.join(page_dir, href))
stem = lambda path: os.path.splitext(os.path.basename(path).removesuffix(".gz"))[0]  # x.json.gz is named as x.json
safe = lambda s: re.sub(r"[^A-Za-z0-9._-]", "_", s)
def created(r):
    try: return datetime.strptime(r["created"], "%Y-%m-%dT%H:%M:%SZ").timestamp()
    except ValueError: return float("-inf")
def suites(command):
    out, tokens = [], command.split()
    for i, t in enumerate(tokens):
        found = [t[len("--suite="):]] if t.startswith("--suite=") else []
        if t == "--suite":
            for u in tokens[i + 1:]:
                if u.startswith("-"): break
                found.append(u)
        out += [s for s in (os.path.splitext(os.path.basename(f))[0] for f in found) if s not in out]
    return out
def measurement(r):
    return (r["tool"]["name"], r["machine"]["gpu"], r["protocol"]["cold"], frozenset(suites(r["command"])),
            frozenset(scrub(a) for a in r["protocol"]["arms"]),
            frozenset((x["problem"]["name"], x["problem"]["M"], x["problem"]["N"], x["problem"]["K"], x["problem"]["dtype"],
                       x["problem"]["layout"], x["problem"]["lda"], x["problem"]["ldb"], x["problem"]["ldc"])
                      for x in r["results"]))
expected_by, order = {}, {p: i for i, p in enumerate(map(os.path.abspath, paths))}
same = {}
for p, r in receipts.items():
    if r["results"]: same.setdefault(measurement(r), []).append(p)
for members in same.values():
    valid = [p for p in members if verdicts.get(p)]
    if not valid: continue
    newest = max(valid, key=lambda p: (created(receipts[p]), order[p]))
    for p in members:
        if (created(receipts[p]), order[p]) < (created(receipts[newest]), order[newest]): expected_by[p] = newest
listed = {href_path(row["data"]["receipt"]): href_path(row["data"]["by"])
          for row in dom.tables.get("superseded", {"rows": []})["rows"]}
require("superseded", listed == expected_by,
        f"the page lists {len(listed)} superseded receipts, the receipts make {len(expected_by)}: "
        f"{sorted(set(map(stem, listed)) ^ set(map(stem, expected_by)))[:10]}")
shown = [p for p in map(os.path.abspath, paths) if p not in expected_by]
print(f"receipts: {len(shown)} shown, {len(expected_by)} superseded")

# --- the first screen: headline, cliff and earlier rows against `tilewise headline --by-dtype` ---
headline_cache = {}
def headline_rows(arm, files):
    key = (arm, tuple(files))
    if key not in headline_cache:
        run = subprocess.run([bin_, "headline", "--by-dtype", "--arm", arm, *files], capture_output=True, text=True)
        rows = {}
        for line in run.stdout.splitlines()[2:]:
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            rows[(c[0], c[1], c[2], "aligned" if c[4] == "aligned" else "unaligned")] = c
        if run.returncode: failures.append(f"tilewise headline {arm} {files}: {run.stderr.strip()}")
        headline_cache[key] = rows
    return headline_cache[key]

def matches(arm, name):
    return name == arm or name.startswith(arm + ":")

def ranges(arm, files, row):
    """The geomeans of each case's least and greatest ratio over the repeats, against the default and the best."""
    sums = {"default": [], "best": []}
    for f in files:
        r = receipts[f]
        for res in r["results"]:
            p = res["problem"]
            orientation = "nn.Linear" if res.get("suite", "").endswith("-linear") or p["name"].endswith("_lin") else "column-major"
            if (res.get("suite") or "-", orientation, p["dtype"], "aligned" if p["ldc"] % 8 == 0 else "unaligned") != row: continue
            timed = lambda pred: next((a for a in res["arms"] if pred(a["arm"]) and a["correct"] and a["us_median"]), None)
            a, d, b = timed(lambda n: matches(arm, n)), timed(lambda n: n == "cublaslt-default"), timed(lambda n: n == "cublaslt")
            if not a or not d: continue
            for kind, other in (("default", d), ("best", b)):
                if other: sums[kind].append((other["us_min"] / a["us_max"], other["us_max"] / a["us_min"]))
    mean = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    return {k: (mean([x[0] for x in v]), mean([x[1] for x in v])) if v else None for k, v in sums.items()}

first_screen_rows, seen_rows = 0, set()
for name, table in dom.tables.items():
    if not (name.startswith("headline-") or name in ("cliff", "earlier")): continue
    columns = csv_rows(name)[0]  # the files' names of the page's columns
    for row, texts in zip(table["rows"], grid(table)):
        first_screen_rows += 1
        d, cells = row["data"], dict(zip(columns, texts))
        files = [href_path(h) for h in d["receipts"].split("|")]
        key = (d["suite"] or "-", d["orientation"], d["dtype"], d["ldc"])
        current = (d["arm"], d["gpu"], key)  # the page keeps one current row a mode, GPU and key
        where = f"{name} {row['id']} {d['arm']} {'/'.join(key)} from {', '.join(map(stem, files))}"
        require(where, all(verdicts.get(f) for f in files), "comes from a receipt that tilewise check rejects")
        require(where, not any(f in expected_by for f in files), "comes from a superseded receipt")
        if name.startswith("headline-"): require(where, d["ldc"] == "aligned", "is on the alignment cliff")
        if name == "cliff": require(where, d["ldc"] == "unaligned", "is not on the alignment cliff")
        require(where, all(receipts[f]["machine"]["gpu"] == d["gpu"] for f in files if f in receipts),
                "pools a receipt measured on another GPU")
        if name in ("cliff", "earlier"): require(where, cells.get("GPU") == d["gpu"], "names another GPU than its receipts")
        if name != "earlier":
            require(where, current not in seen_rows, "is a second current row for its mode, GPU and key")
            seen_rows.add(current)
        for f in files: seen_rows.add((d["arm"], key, f))
        md = headline_rows(d["arm"], files).get(key)
        require(where, md is not None, "is not a row `tilewise headline --by-dtype` prints for its receipts")
        if md is None: continue
        text = " | ".join(f"{k}: {v}" for k, v in cells.items())
        vs_default = cells["vs cuBLASLt default (range over repeats)"]
        vs_best = cells["vs cuBLASLt best (range over repeats)"]
        expect(where, cells["cases"], md[5])
        expect(where, vs_default, md[6])
        expect(where, vs_best, md[7])
        expect(where, cells["faster"], md[8])
        expect(where, cells["slower"], md[9])
        for kind, shown_text in (("default", vs_default), ("best", vs_best)):
            r = ranges(d["arm"], files, key)[kind]
            if r:
                expect(where + f" vs {kind} range", shown_text, f"{r[0]:.3f}")
                expect(where + f" vs {kind} range", shown_text, f"{r[1]:.3f}")
            else: require(where, shown_text == "-", f"shows a figure against cuBLASLt's {kind} that no receipt has")
        if first_screen_rows == 1: print(f"  e.g. {where}: page {text!r}; tilewise headline {' | '.join(md)}")

# Every row of every eligible receipt is somewhere on the first screen.
for p in shown:
    r = receipts[p]
    family = [a for a in r["protocol"]["arms"] if a == "selected" or a.startswith("selected:")]
    if (not verdicts.get(p) or r["tool"]["name"] != "tilewise" or not r["protocol"]["cold"] or len(family) != 1
            or "cublaslt-default" not in r["protocol"]["arms"]): continue
    arm = "selected" if family[0] == "selected" else "selected:tune" if family[0].startswith("selected:tune:") else None
    if not arm: continue
    for key in headline_rows(arm, [p]):
        require(f"{stem(p)} {arm} {'/'.join(key)}", (arm, key, p) in seen_rows, "is on no row of the first screen")
print(f"first screen: {first_screen_rows} rows checked against tilewise headline --by-dtype")

# --- every shown receipt's figures in its arms' rows ---
MARK = {"faster": "+", "slower": "-"}  # the claim rule's marks; "~" where the ranges overlap
FORMAT = {"us_median": "{:.2f}", "tflops": "{:.1f}", "gbps": "{:.0f}"}  # ratios get three decimals
def missing_figure(a):  # what the page shows where an arm has no figure
    return "declined" if a.get("declined") else "did not run" if a["error"] else "incorrect"

for path in shown:
    s = stem(path)
    r = receipts[path]
    section, before = dom.text.get(s, ""), checked
    for i, res in enumerate(r["results"]):
        p = res["problem"]
        for a in res["arms"]:
            row = dom.text.get(f"{s}-r{i}-{safe(scrub(a['arm']))}")
            where = f"{s} results[{i}] {p['name']} {p['dtype']} {p['layout']} [{scrub(a['arm'])}]"
            if a["us_median"] is None:
                expect(where, row, missing_figure(a))
                continue
            for figure in (f"{a['us_median']:.2f}", f"{a['tflops']:.1f}", f"{a['gbps']:.0f}"):
                expect(where, row, figure)
        for c in res["comparisons"]:
            expect(f"{s} results[{i}] {c['arm']} vs {c['baseline']}", dom.text.get(f"{s}-r{i}-{safe(scrub(c['arm']))}"),
                   f"{c['speedup']:.3f}{MARK.get(c['claim'], '~')}")
    for pr in (r.get("preregistration") or {}).get("predictions", []):
        where, row = f"{s} prediction {pr['id']}", dom.text.get(f"{s}-p-{safe(pr['id'])}")
        expect(where, row, pr["verdict"])
        if pr["measured"] is not None: expect(where, row, FORMAT.get(pr["metric"], "{:.3f}").format(pr["measured"]))
    expect(f"{s} machine", section, f"{r['machine']['read_bw_gbps']:.0f} GB/s")
    expect(f"{s} clocks", section, f"median {r['clocks']['during']['sm_mhz_median']} MHz")
    expect(f"{s} verdict", section, "Valid:" if verdicts[path] else "INVALID receipt")
print(f"receipts: {checked} figures checked in the arms' rows and sections")

# --- the receipts joined by problem: side by side and the cross-check, over the shown receipts ---
key = lambda p: (p["name"], p["M"], p["N"], p["K"], p["dtype"], p["layout"])
joined = [(n, stem(p), receipts[p], verdicts[p]) for n, p in enumerate(shown)]
groups, suite_order = {}, []
for n, s, r, valid in joined:
    for suite in suites(r["command"]) or ["other"]:
        suite_order += [suite] if suite not in suite_order else []
        groups.setdefault((suite, r["machine"]["gpu"], r["protocol"]["cold"]), []).append((n, s, r, valid))
numbered, side_checked = {}, checked
for (suite, gpu, cold), members in sorted(groups.items(), key=lambda g: suite_order.index(g[0][0])):
    numbered[suite] = numbered.get(suite, 0) + 1
    table = f"sbs-{safe(suite)}" + (f"-{numbered[suite]}" if numbered[suite] > 1 else "")
    arms = {}
    for n, s, r, valid in members:
        for i, res in enumerate(r["results"]):
            if res.get("suite") and res["suite"] != suite: continue  # a result that names its suite shows there only
            for a in res["arms"]:
                arms.setdefault(key(res["problem"]), {}).setdefault(scrub(a["arm"]), []).append((created(r), n, s, i, a, valid))
    for k, by_arm in arms.items():
        if len(by_arm) < 2: continue
        for arm, entries in by_arm.items():
            _, _, s, i, a, valid = max(entries, key=lambda e: (e[0], e[1]))
            where = f"side by side {table} {k[0]} {k[4]} {k[5]} [{arm}] from {s}"
            cell = dom.text.get(f"{table}-{safe(k[0])}-{k[4]}-{k[5]}-{safe(arm)}")
            if a["error"] or not a["correct"]: expect(where, cell, missing_figure(a))
            else:
                expect(where, cell, f"{a['us_median']:.2f}")
                expect(where, cell, f"{a['tflops']:.1f} TFLOP/s")
            expect(where, flat(cell), f"{s} [{i}]")
            expect(where, cell, "INVALID receipt" if not valid else f"newest of {len(entries)}" if len(entries) > 1 else s)
print(f"side by side: {checked - side_checked} figures checked in the DOM")

torch, vendor = {}, {}
for n, s, r, valid in joined:
    if not valid: continue
    for i, res in enumerate(r["results"]):
        for a in res["arms"]:
            if not a["correct"] or a["error"] or not a["us_median"]: continue
            k = (r["machine"]["gpu"], r["protocol"]["cold"], key(res["problem"]))
            if r["tool"]["name"] == "tilewise-peers" and a["arm"] == "torch": torch.setdefault(k, []).append((n, s, i, a, r))
            if r["tool"]["name"] == "tilewise" and a["arm"] == "cublaslt-default": vendor.setdefault(k, []).append((n, s, i, a, r))
gpus, cross_checked = {}, checked
for k in sorted(set(torch) & set(vendor), key=lambda k: min((v[0], v[2]) for v in vendor[k])):
    pairs = [(abs(created(t[4]) - created(v[4])), -t[0], -v[0], t, v) for t in torch[k] for v in vendor[k]]
    _, _, _, t, v = min(pairs, key=lambda p: p[:3])
    ratio = t[3]["us_median"] / v[3]["us_median"]
    long, flagged = v[3]["us_median"] >= 50, v[3]["us_median"] >= 50 and not 0.95 <= ratio <= 1.05
    t_mhz, v_mhz = t[3]["clock"]["sm_mhz_median"], v[3]["clock"]["sm_mhz_median"]
    cycles = ratio * t_mhz / v_mhz if t_mhz > 0 and v_mhz > 0 else None
    g = gpus.setdefault(k[0], {"index": len(gpus), "rows": 0, "long": 0, "outside": 0, "cycles_within": 0})
    g["rows"] += 1; g["long"] += long; g["outside"] += flagged
    g["cycles_within"] += flagged and cycles is not None and 0.95 <= cycles <= 1.05
    name, dtype, layout = k[2][0], k[2][4], k[2][5]
    row = dom.text.get(f"xc{g['index']}-{safe(name)}-{dtype}-{layout}-{'cold' if k[1] else 'warm'}")
    where = f"cross-check {name} {dtype} {layout} ({t[1]} / {v[1]})"
    for figure in (f"{t[3]['us_median']:.2f}", f"{v[3]['us_median']:.2f}", f"{ratio:.3f}",
                   f"{cycles:.3f}" if cycles is not None else "no clock", str(t_mhz), str(v_mhz),
                   f"{t[1]} [{t[2]}]", f"{v[1]} [{v[2]}]", t[4]["created"], v[4]["created"],
                   "outside" if flagged else "within" if long else "short"):
        expect(where, flat(row), figure)
section = flat(dom.text.get("cross-check", ""))
for gpu, g in gpus.items():
    sentence = (f"On {gpu}: {g['rows']} problem{'' if g['rows'] == 1 else 's'} paired; {g['long']} long kernel"
                f"{'' if g['long'] == 1 else 's'} (cublaslt-default median \u2265 50 \u00b5s) compared, "
                f"{g['long'] - g['outside']} within 5% (ratio in [0.95, 1.05]), {g['outside']} outside"
                + (f", of which {g['cycles_within']} within 5% in SM cycles." if g["outside"] else "."))
    expect(f"cross-check counts on {gpu}", section, sentence)
print(f"cross-check: {checked - cross_checked} figures checked in the DOM")

# --- every table's files carry the page's figures ---
numbers = lambda text: re.findall(r"\d+(?:\.\d+)?", text)
files_checked = checked
require("tables/", set(table_files) == {f"{n}.{e}" for n in dom.tables for e in ("csv", "md")},
        f"{len(table_files)} files for {len(dom.tables)} tables")
for name, table in dom.tables.items():
    lines = csv_rows(name)
    md_rows = [[words(c.replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
               for line in open(os.path.join(page_dir, "tables", name + ".md"), encoding="utf-8")]
    require(name, [md_rows[0]] + md_rows[2:] == [[words(c) for c in row] for row in lines], "its markdown and CSV differ")
    require(name, len(lines) == 1 + len(table["rows"]), f"{len(lines) - 1} CSV rows for {len(table['rows'])} on the page")
    for row, texts, line in zip(table["rows"], grid(table), lines[1:]):
        require(f"{name} {row['id'] or ''}", len(texts) == len(line), f"{len(texts)} cells on the page, {len(line)} in the file")
        for page_text, file_text in zip(texts, line):
            missing = set(numbers(file_text)) - set(numbers(page_text))
            require(f"{name} {row['id'] or ''}", not missing,
                    f"the file's cell {file_text!r} has {sorted(missing)}, the page's {page_text!r} not")
print(f"tables: {len(dom.tables)} tables, {checked - files_checked} cells of their files found on the page")

if failures:
    kinds = {}
    for f in failures: kinds.setdefault(re.sub(r"[\d.]+", "#", f.split(":")[0])[:60], f)
    print(f"page_check: {len(failures)} of {checked} checks failed, e.g.:", *list(kinds.values())[:25], sep="\n  ")
    sys.exit(1)
print(f"page_check: all {checked} checks passed")
