#!/usr/bin/env bash
# Rebuilds the checked-in report page, docs/report/, from the committed receipts, and where Chromium is installed a
# screenshot of its top (the overview, the first machine block and the first tables) beside it.
#   scripts/report.sh          (TILEWISE_BIN=... to use another build of tilewise)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TILEWISE_BIN:-build/release/tilewise}
rm -rf docs/report  # so nothing of an older page stays behind (pages before 2026-12-01 kept receipt copies there)
"$bin" report results/*.json -o docs/report
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report: no chromium or chromium-browser installed; no screenshot taken"
  exit 0
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
  --user-data-dir="$profile" --window-size=1400,2400 --screenshot="$PWD/docs/report/screenshot.png" \
  "file://$PWD/docs/report/index.html" >/dev/null 2>&1
echo "report: docs/report/screenshot.png"
