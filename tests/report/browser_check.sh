#!/usr/bin/env bash
# The report page as a browser sees it: renders the committed receipts with `tilewise report`, loads the page in
# headless Chromium, and checks its DOM against the receipts, `tilewise headline` and `tilewise check`
# (tests/report/page_check.py says what), and that the same check fails a copy with one headline figure changed.
# Fails unless the headline's first table begins on the first screen; leaves OUT_DIR/first-screen.png and a picture
# of the page's top, OUT_DIR/report.png.
#   tests/report/browser_check.sh TILEWISE_BIN OUT_DIR       exit 77 (skipped) where no Chromium is installed
set -euo pipefail
bin=$(realpath "$1")
out=$(mkdir -p "$2" && realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "browser_check: no chromium or chromium-browser installed; skipped"
  exit 77
fi
[ -x "$bin" ] || { echo "browser_check: $bin is not built" >&2; exit 1; }
# Plain and compressed receipts (the large ones are results/*.json.gz), in the order of their names.
shopt -s nullglob
mapfile -t receipts < <(printf '%s\n' "$root"/results/*.json "$root"/results/*.json.gz | sort)
"$bin" report "${receipts[@]}" -o "$out/page" --overwrite

# A profile of its own, so a run never touches (or waits on) a user's browser.
chrome=("$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$out/chromium-profile")
timeout 120 "${chrome[@]}" --dump-dom "file://$out/page/index.html" >"$out/dom.html" 2>"$out/chromium.log"
timeout 300 python3 "$here/page_check.py" "$bin" "$out/page" "$out/dom.html" "${receipts[@]}"
# The check fails a page that shows another figure: the first headline row's ratio against the default, 0.001 up.
python3 - "$out/dom.html" "$out/dom-doctored.html" <<'EOF'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
m = re.compile(r"<b>(\d+\.\d{3})x</b>").search(dom, dom.index('<tr id="headline-'))
open(sys.argv[2], "w", encoding="utf-8").write(dom[:m.start(1)] + f"{float(m.group(1)) + 0.001:.3f}" + dom[m.end(1):])
print(f"browser_check: the headline's {m.group(1)}x doctored to {float(m.group(1)) + 0.001:.3f}x")
EOF
if timeout 300 python3 "$here/page_check.py" "$bin" "$out/page" "$out/dom-doctored.html" "${receipts[@]}" \
  >"$out/doctored.log"; then
  echo "browser_check: page_check passed the doctored page" >&2
  exit 1
fi
grep -m1 -A1 "checks failed" "$out/doctored.log"
timeout 180 python3 "$here/chromium.py" "file://$out/page/index.html" --on-first-screen table-headline-defaults \
  --first-screen "$out/first-screen.png" --full "$out/report.png" -- "${chrome[@]}"
