// The HTML report's stylesheet (report_html.cc), light and dark, inlined in
// the page. Not a public header.

#pragma once

#include <string_view>

namespace cookgraph::report_internal {

inline constexpr std::string_view kReportStyle = R"(
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #ffffff;
  --panel: #f4f6fa; --line: #d7dce5; --accent: #2f6fde; --bad: #c8322b; --warn: #b86e00;
  --good: #2b8a3e; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e3e7ef; --muted: #9aa3b5; --bg: #14171d; --panel: #1c2028; --line: #323846;
    --accent: #6aa0ff; --bad: #ff6b61; --warn: #f0a83a; --good: #5cc774; } }
body { font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 4px; } h2 { font-size: 1.25em; margin-top: 2em;
  border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.muted, caption { color: var(--muted); } caption { text-align: left; padding: 4px 0; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; } td.n, th.n { text-align: right; white-space: nowrap; }
th { background: var(--panel); } code, .id { font-family: ui-monospace, monospace;
  font-size: 0.92em; overflow-wrap: anywhere; }
td.id, td.name { min-width: 16ch; }
/* Ten number columns: tighter, so that a long id keeps its room. */
#top-nodes td.n, #top-nodes th.n { padding: 4px 4px; }
.chart { display: block; background: var(--panel); border-radius: 6px; margin: 8px 0; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .label { fill: var(--muted); font: 12px system-ui, sans-serif; }
.chart .series { fill: none; stroke: var(--accent); stroke-width: 1.5; }
.chart .series.before { stroke: var(--muted); stroke-width: 1; stroke-dasharray: 4 3; }
.chart .budget { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 6 4; }
.ev-op { fill: #4e79a7; } .ev-runtime { fill: #b07aa1; } .ev-note { fill: #bab0ac; }
.ev-kernel { fill: #59a14f; } .ev-comm { fill: #e15759; } .ev-copy { fill: #f28e2b; }
.ev-wait { fill: #edc948; } .ev-many { fill: #76b7b2; }
.gpu-compute { fill: #59a14f; } .gpu-other { fill: #e15759; } .gpu-host-wait { fill: #9c9c9c; }
.gpu-kernel-wait { fill: #c8c8c8; } .gpu-idle-other { fill: #e3e3e3; }
.chart .budget-label { fill: var(--bad); } .chart .over { fill: var(--bad); }
.chart .bar { fill: var(--accent); } .chart .bar.critical { fill: var(--warn); }
.bad { color: var(--bad); font-weight: 600; } .ok { color: var(--good); font-weight: 600; }
.finding { background: var(--panel); border-left: 4px solid var(--muted); border-radius: 4px;
  padding: 8px 14px; margin: 10px 0; }
.finding.critical { border-color: var(--bad); } .finding.warning { border-color: var(--warn); }
.sev { text-transform: uppercase; font-size: 0.8em; font-weight: 700; letter-spacing: 0.05em; }
.finding.critical .sev { color: var(--bad); } .finding.warning .sev { color: var(--warn); }
.heatmap { overflow: auto; max-height: 85vh; background: #ffffff; border: 1px solid var(--line);
  border-radius: 6px; margin: 8px 0; }
.heatmap-fit { width: var(--fit); margin: 0 auto; }
.heatmap-fit svg { display: block; width: 100%; height: 100%; }
.heatmap-size[open] ~ .heatmap .heatmap-fit { width: var(--full); }
.heatmap-size summary { cursor: pointer; color: var(--accent); }
.heatmap-size[open] .closed, .heatmap-size:not([open]) .open { display: none; }
.advice { background: var(--panel); padding: 4px 16px; border-radius: 6px; overflow-wrap: anywhere; }
.advice pre { white-space: pre-wrap; }
)";

}  // namespace cookgraph::report_internal
