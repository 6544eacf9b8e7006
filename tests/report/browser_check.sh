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
"$bin" report "${receipts[@]}" -o "$out"

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

def expect(where, text, figure):
    global checked
    checked += 1
    if not re.search(r"(?<![\d.])" + re.escape(figure) + r"(?![\d])", text or ""):
        failures.append(f"{where}: {figure!r} not in the rendered text {(text or '(element missing)')[:300]!r}")

for path in sys.argv[2:]:
    stem = os.path.splitext(os.path.basename(path))[0]
    r = json.load(open(path))
    section = dom.text.get(stem, "")
    before, rows = checked, 0
    for i, res in enumerate(r["results"]):
        p = res["problem"]
        for a in res["arms"]:
            row = dom.text.get(f"{stem}-r{i}-{a['arm']}")
            where = f"{stem} results[{i}] {p['name']} {p['dtype']} {p['layout']} [{a['arm']}]"
            rows += 1
            if a["us_median"] is None:
                expect(where, row, "did not run" if a["error"] else "incorrect")
                continue
            for figure in (f"{a['us_median']:.2f}", f"{a['tflops']:.1f}", f"{a['gbps']:.0f}"):
                expect(where, row, figure)
        for c in res["comparisons"]:
            expect(f"{stem} results[{i}] {c['arm']} vs {c['baseline']}", dom.text.get(f"{stem}-r{i}-{c['arm']}"),
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
shot = call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": 1400, "height": size["height"], "scale": 1})
open(png, "wb").write(base64.b64decode(shot["data"]))
print(f"browser_check: full-page screenshot {png} (1400 x {size['height']:.0f} px)")
call("Browser.close")
proc.wait(timeout=30)
EOF
