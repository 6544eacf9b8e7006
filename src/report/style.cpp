#include "report/style.hpp"

namespace tilewise::report {

const char* const page_style = R"(
:root { --ink: #1d2330; --muted: #5b6475; --line: #dde2ea; --faster: #2166ac; --slower: #b2182b; --overlap: #6b7280; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); margin: 24px 32px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 0 0 8px; }
h3 { font-size: 16px; margin: 26px 0 8px; }
h4 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
a { color: #1f5fa8; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
section.receipt { border-top: 3px solid var(--line); margin-top: 36px; padding-top: 14px; }
section.invalid { border-top-color: var(--slower); }
a.source { font-size: 13px; font-weight: normal; margin-left: 8px; }
.invalid-banner { background: #fdecee; border: 2px solid var(--slower); color: #7a0f1f; padding: 10px 16px; }
.invalid-banner strong { font-size: 18px; letter-spacing: .04em; }
.valid { color: #1b6e3a; }
.invalid-cell { color: var(--slower); font-weight: 700; }
.meta, .note, figcaption, caption { color: var(--muted); font-size: 13px; }
caption { text-align: left; padding-bottom: 6px; }
blockquote { margin: 0 0 8px; padding: 6px 14px; border-left: 4px solid var(--line); font-style: italic; }
.machine { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 14px 24px; }
.machine dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 3px 7px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
th { font-size: 12px; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); }
th, td.num, td.problem, td.arm, table.overview td:not(:last-child) { white-space: nowrap; }
td.num { text-align: right; }
table.results { width: 100%; }
table.results tbody:nth-of-type(even) td { background: #f6f8fb; }
tbody:target td, tr:target td { background: #fff3b0 !important; }
td.config { font: 11px/1.3 ui-monospace, Menlo, Consolas, monospace; color: var(--muted); min-width: 220px; }
small { color: var(--muted); font-size: 11px; }
td.fail { color: var(--slower); font-weight: 600; }
td.muted { color: var(--muted); }
.faster { color: var(--faster); }
.slower { color: var(--slower); }
.overlap { color: var(--overlap); }
.claim { font-size: 11px; font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
td.verdict { font-weight: 600; white-space: nowrap; }
table.predictions td:nth-child(-n+4) { white-space: nowrap; }
.v-held { background: #dcf2e3; color: #14532d; }
.v-missed_high { background: #fde2e1; color: #7f1d1d; }
.v-missed_low { background: #fde9d0; color: #7c2d12; }
.v-not_measured { background: #eceff3; color: #4b5563; }
figure { margin: 8px 0 16px; }
.scroll { overflow-x: auto; }
svg { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg.bar { vertical-align: middle; }
svg .note, svg .value { fill: var(--muted); font-size: 11px; }
svg .value { paint-order: stroke; stroke: #fff; stroke-width: 3px; } /* legible where it crosses the reference line */
svg .head { font-weight: 600; }
svg .grid { stroke: #e3e7ee; }
svg .empty { fill: #f1f3f6; }
svg line.reference { stroke: #111; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg text.reference { font-weight: 600; }
section.compare { border-top: 3px solid var(--line); margin-top: 36px; padding-top: 14px; }
table.side td.num, table.cross td.num { white-space: nowrap; }
s { color: var(--slower); text-decoration-thickness: 2px; }
.counts { font-size: 15px; }
tr.flagged td { background: #fdecee; }
td.flag { color: var(--slower); font-weight: 700; white-space: nowrap; }
header .lede, #headline .lede { max-width: 1180px; margin: 2px 0 8px; }
header nav { margin: 6px 0 8px; }
#headline table, #cliff table { margin-bottom: 10px; }
table.headline td, table.decode td { padding: 1px 7px; white-space: nowrap; }
table.headline td.receipts { font-size: 12px; }
table.headline caption { font-size: 14px; color: var(--ink); }
td.chart, th.chart { padding: 0 4px; }
svg.ratio { display: block; }
svg.ratio line.grid { stroke: #e3e7ee; }
svg.ratio line.one { stroke: #111; stroke-width: 1.2; stroke-dasharray: 3 2; }
td.ratio small, td.range { color: var(--muted); font-size: 11px; }
caption .files { font-size: 11px; margin-left: 8px; }
section#cliff, section#decode, section#rest { border-top: 3px solid var(--line); margin-top: 24px; padding-top: 12px; }
details { margin: 10px 0; }
summary { cursor: pointer; color: #1f5fa8; }
)";

}  // namespace tilewise::report
