#!/usr/bin/env bash
# The report page as a browser sees it: renders the committed receipts with `tilewise report`, loads the page in
# headless Chromium, and checks that figures read from the receipts (by python's json module, formatted as the page
# formats them) are in the rendered DOM, in the row of the arm they belong to. Leaves a full-page screenshot in
# OUT_DIR/report.png.
#   tests/report/browser_check.sh TILEWISE_BIN OUT_DIR       exit 77 (skipped) where no Chromium is installed
set -euo pipefail
bin=$(realpath "$1")
out=$(mkdir -p "$2" && realpath "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "browser_check: no chromium or chromium-browser installed; skipped"
  exit 77
fi
[ -x "$bin" ] || { echo "browser_check: $bin is not built" >&2; exit 1; }
receipts=("$root"/results/*.json)
"$bin" report "${receipts[@]}" -o "$out" --overwrite

# A profile of its own, so a run never touches (or waits on) a user's browser.
chrome=("$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$out/chromium-profile")
timeout 120 "${chrome[@]}" --dump-dom "file://$out/index.html" >"$out/dom.html" 2>"$out/chromium.log"

timeout 120 python3 - "$out/dom.html" "${receipts[@]}" <<'EOF'
import html.parser, json, os, re, sys

class ById(html.parser.HTMLParser):
    """The visible text of every element that has an id (tooltips left out), chunks separated by ' | '."""
    void = {"br", "meta", "img", "hr", "input", "link", "col", "wbr"}
    def __init__(self):
        super().__init__()
        self.open, self.text = [], {}
    def handle_starttag(self, tag, attrs):
        if tag in self.void: return
        self.open.append((tag, dict(attrs).get("id")))
    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag: pass
    def handle_data(self, data):
        if any(tag == "title" for tag, _ in self.open): return
        for _, id in self.open:
            if id: self.text[id] = self.text.get(id, "") + data + " | "

dom = ById()
dom.feed(open(sys.argv[1], encoding="utf-8").read())
failures, checked = [], 0
MARK = {"faster": "+", "slower": "-"}  # the claim rule's marks; "~" where the ranges overlap
FORMAT = {"us_median": "{:.2f}", "tflops": "{:.1f}", "gbps": "{:.0f}"}  # ratios get three decimals

def missing_figure(a):  # what the page shows where an arm has no figure
    return "declined" if a.get("declined") else "did not run" if a["error"] else "incorrect"

def expect(where, text, figure):
    global checked
    checked += 1
    if not re.search(r"(?<![\d.])" + re.escape(figure) + r"(?![\d])", text or ""):
        failures.append(f"{where}: {figure!r} not in the rendered text {(text or '(element missing)')[:300]!r}")

# Element ids as the page writes them (report/page.cpp safe_name): arm names like gemv:bf16@unroll=8 included.
safe = lambda s: re.sub(r"[^A-Za-z0-9._-]", "_", s)
for path in sys.argv[2:]:
    stem = os.path.splitext(os.path.basename(path))[0]
    r = json.load(open(path))
    section = dom.text.get(stem, "")
    before, rows = checked, 0
    for i, res in enumerate(r["results"]):
        p = res["problem"]
        for a in res["arms"]:
            row = dom.text.get(f"{stem}-r{i}-{safe(a['arm'])}")
            where = f"{stem} results[{i}] {p['name']} {p['dtype']} {p['layout']} [{a['arm']}]"
            rows += 1
            if a["us_median"] is None:
                expect(where, row, missing_figure(a))
                continue
            for figure in (f"{a['us_median']:.2f}", f"{a['tflops']:.1f}", f"{a['gbps']:.0f}"):
                expect(where, row, figure)
        for c in res["comparisons"]:
            expect(f"{stem} results[{i}] {c['arm']} vs {c['baseline']}", dom.text.get(f"{stem}-r{i}-{safe(c['arm'])}"),
                   f"{c['speedup']:.3f}{MARK.get(c['claim'], '~')}")
        if i == 0:
            first = "; ".join(f"{a['arm']} {a['us_median']:.2f} us {a['tflops']:.1f} TFLOP/s {a['gbps']:.0f} GB/s"
                              for a in res["arms"] if a["us_median"] is not None)
            print(f"  e.g. {stem} results[0] {p['name']} {p['dtype']} {p['layout']}: {first}")
    for pr in (r.get("preregistration") or {}).get("predictions", []):
        where = f"{stem} prediction {pr['id']}"
        row = dom.text.get(f"{stem}-p-" + re.sub(r"[^A-Za-z0-9._-]", "_", pr["id"]))
        expect(where, row, pr["verdict"])
        if pr["measured"] is not None:
            expect(where, row, FORMAT.get(pr["metric"], "{:.3f}").format(pr["measured"]))
    expect(f"{stem} machine", section, f"{r['machine']['read_bw_gbps']:.0f} GB/s")
    expect(f"{stem} clocks", section, f"median {r['clocks']['during']['sm_mhz_median']} MHz")
    expect(f"{stem} verdict", section, "Valid:" if r["valid"] else "INVALID receipt")
    if r["protocol"]["cold"] and any(res["problem"]["M"] <= 16 for res in r["results"]):
        expect(f"{stem} decode chart", section, f"measured read bandwidth {r['machine']['read_bw_gbps']:.0f} GB/s")
    print(f"{stem}: {len(r['results'])} results, {rows} arm rows, {checked - before} figures checked in the DOM")

# The receipts joined by problem, recomputed here from the JSON: the side-by-side tables and the torch.mm against
# cublaslt-default cross-check.
from datetime import datetime
flat = lambda text: text and re.sub(r"\s*\|\s*", " ", text)  # element boundaries read as one space
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
        out += [os.path.splitext(os.path.basename(f))[0] for f in found if os.path.splitext(os.path.basename(f))[0] not in out]
    return out or ["other"]
key = lambda p: (p["name"], p["M"], p["N"], p["K"], p["dtype"], p["layout"])
receipts = [(n, os.path.splitext(os.path.basename(path))[0], json.load(open(path))) for n, path in enumerate(sys.argv[2:])]

groups, suite_order = {}, []
for n, stem, r in receipts:
    for suite in suites(r["command"]):
        suite_order += [suite] if suite not in suite_order else []
        groups.setdefault((suite, r["machine"]["gpu"], r["protocol"]["cold"]), []).append((n, stem, r))
numbered, side_checked = {}, checked
for (suite, gpu, cold), members in sorted(groups.items(), key=lambda g: suite_order.index(g[0][0])):
    numbered[suite] = numbered.get(suite, 0) + 1
    table = f"sbs-{safe(suite)}" + (f"-{numbered[suite]}" if numbered[suite] > 1 else "")
    arms = {}
    for n, stem, r in members:
        for i, res in enumerate(r["results"]):
            if res.get("suite") and res["suite"] != suite: continue  # a result that names its suite shows there only
            for a in res["arms"]:
                arms.setdefault(key(res["problem"]), {}).setdefault(a["arm"], []).append((created(r), n, stem, i, a, r))
    for k, by_arm in arms.items():
        if len(by_arm) < 2: continue
        for arm, entries in by_arm.items():
            _, _, stem, i, a, r = max(entries, key=lambda e: (e[0], e[1]))
            where = f"side by side {table} {k[0]} {k[4]} {k[5]} [{arm}] from {stem}"
            cell = dom.text.get(f"{table}-{safe(k[0])}-{k[4]}-{k[5]}-{safe(arm)}")
            if a["error"] or not a["correct"]:
                expect(where, cell, missing_figure(a))
            else:
                expect(where, cell, f"{a['us_median']:.2f}")
                expect(where, cell, f"{a['tflops']:.1f} TFLOP/s")
            expect(where, flat(cell), f"{stem} [{i}]")
            expect(where, cell, "INVALID receipt" if not r["valid"] else f"newest of {len(entries)}" if len(entries) > 1 else stem)
        if k[0] == "sq4096" and k[4] == "bf16" and k[5] == "TN":
            print(f"  e.g. {table} sq4096 bf16 TN: " + "; ".join(
                f"{arm} {max(e, key=lambda x: (x[0], x[1]))[4]['us_median']:.2f} us ({max(e, key=lambda x: (x[0], x[1]))[2]})"
                for arm, e in by_arm.items()))
print(f"side by side: {checked - side_checked} figures checked in the DOM")

torch, vendor = {}, {}
for n, stem, r in receipts:
    if not r["valid"]: continue
    for i, res in enumerate(r["results"]):
        for a in res["arms"]:
            if not a["correct"] or a["error"] or not a["us_median"]: continue
            k = (r["machine"]["gpu"], r["protocol"]["cold"], key(res["problem"]))
            if r["tool"]["name"] == "tilewise-peers" and a["arm"] == "torch": torch.setdefault(k, []).append((n, stem, i, a, r))
            if r["tool"]["name"] == "tilewise" and a["arm"] == "cublaslt-default": vendor.setdefault(k, []).append((n, stem, i, a, r))
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
                   f"{cycles:.3f}" if cycles is not None else "no clock",
                   str(t[3]["clock"]["sm_mhz_median"]), str(v[3]["clock"]["sm_mhz_median"]),
                   f"{t[1]} [{t[2]}]", f"{v[1]} [{v[2]}]", t[4]["created"], v[4]["created"],
                   "outside" if flagged else "within" if long else "short"):
        expect(where, flat(row), figure)
    if flagged and g["outside"] == 1:
        print(f"  e.g. flagged {where}: torch {t[3]['us_median']:.2f} us at {t[3]['clock']['sm_mhz_median']} MHz, "
              f"cublaslt-default {v[3]['us_median']:.2f} us at {v[3]['clock']['sm_mhz_median']} MHz, ratio {ratio:.3f}")
section = flat(dom.text.get("cross-check", ""))
for gpu, g in gpus.items():
    sentence = (f"On {gpu}: {g['rows']} problem{'' if g['rows'] == 1 else 's'} paired; {g['long']} long kernel"
                f"{'' if g['long'] == 1 else 's'} (cublaslt-default median \u2265 50 \u00b5s) compared, "
                f"{g['long'] - g['outside']} within 5% (ratio in [0.95, 1.05]), {g['outside']} outside"
                + (f", of which {g['cycles_within']} within 5% in SM cycles." if g["outside"] else "."))
    expect(f"cross-check counts on {gpu}", section, sentence)
    print(f"cross-check: {sentence}")
print(f"cross-check: {checked - cross_checked} figures checked in the DOM")

if failures:
    print(f"browser_check: {len(failures)} of {checked} checks failed:", *failures[:20], sep="\n  ")
    sys.exit(1)
print(f"browser_check: all {checked} figures found where they belong")
EOF

# Chromium's --screenshot captures the window only; a full page needs the page's height, which only the DevTools
# protocol reports. It is spoken over a pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4).
timeout 180 python3 - "$out/report.png" "file://$out/index.html" "${chrome[@]}" <<'EOF'
import base64, fcntl, json, os, subprocess, sys

png, url, chrome = sys.argv[1], sys.argv[2], sys.argv[3:]
to_chrome, from_us = os.pipe()
to_us, from_chrome = os.pipe()
def child_fds():
    # Out of the way first, so that neither dup2 overwrites the other pipe's end.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, from_chrome)]
    os.dup2(high[0], 3)
    os.dup2(high[1], 4)
proc = subprocess.Popen(chrome + ["--remote-debugging-pipe", "about:blank"], close_fds=False, preexec_fn=child_fds,
                        stderr=subprocess.DEVNULL)
os.close(to_chrome); os.close(from_chrome)
send, receive, buffered, next_id = os.fdopen(from_us, "wb"), os.fdopen(to_us, "rb"), b"", 0

def message():
    global buffered
    while b"\0" not in buffered:
        chunk = receive.read1(1 << 20)
        if not chunk: sys.exit("browser_check: Chromium closed the DevTools pipe")
        buffered += chunk
    one, buffered = buffered.split(b"\0", 1)
    return json.loads(one)

def call(method, session=None, until=None, **params):
    """Sends a command and returns its result; with `until`, also waits for that event, which may come first."""
    global next_id
    next_id += 1
    send.write(json.dumps({"id": next_id, "method": method, "params": params,
                           **({"sessionId": session} if session else {})}).encode() + b"\0")
    send.flush()
    result, seen = None, until is None
    while result is None or not seen:
        m = message()
        if m.get("id") == next_id:
            if "error" in m: sys.exit(f"browser_check: {method}: {m['error']}")
            result = m["result"]
        elif m.get("method") == until:
            seen = True
    return result

target = call("Target.createTarget", url="about:blank")["targetId"]
session = call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
call("Page.enable", session)
call("Emulation.setDeviceMetricsOverride", session, width=1400, height=1000, deviceScaleFactor=1, mobile=False)
call("Page.navigate", session, until="Page.loadEventFired", url=url)
size = call("Page.getLayoutMetrics", session)["cssContentSize"]
# Headless Chromium refuses one image much taller than 16K px ("Unable to capture screenshot"), which the page passed
# at about 80 receipts: the picture is of its top; every figure was checked in the DOM above.
height = min(size["height"], 16000)
shot = call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": 1400, "height": height, "scale": 1})
open(png, "wb").write(base64.b64decode(shot["data"]))
print(f"browser_check: screenshot {png} (1400 x {height:.0f} px of the page's {size['height']:.0f})")
call("Browser.close")
proc.wait(timeout=30)
EOF
