#!/usr/bin/env bash
# Builds the report page from the committed receipts into build/report/ (index.html and tables/, every table as CSV
# and markdown; not committed), and where Chromium is installed the picture of its first screen that the repository
# keeps, docs/report-first-screen.png (taken as tests/report/browser_check.sh takes it).
#   scripts/report.sh          (TILEWISE_BIN=... to use another build of tilewise)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TILEWISE_BIN:-build/release/tilewise}
# Plain and compressed receipts (the large ones are results/*.json.gz), in the order of their names.
shopt -s nullglob
mapfile -t receipts < <(printf '%s\n' results/*.json results/*.json.gz | sort)
"$bin" report "${receipts[@]}" -o build/report --overwrite
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report: no chromium or chromium-browser installed; docs/report-first-screen.png not taken"
  exit 0
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 180 python3 tests/report/chromium.py "file://$PWD/build/report/index.html" \
  --on-first-screen table-headline-defaults --first-screen docs/report-first-screen.png -- \
  "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile"
