#ifndef COOKGRAPH_ADVISOR_REPORT_REPORT_RENDERERS_H_
#define COOKGRAPH_ADVISOR_REPORT_REPORT_RENDERERS_H_

// `cookgraph report`: one snapshot's analysis, findings and advice as a
// self-contained HTML page (inline CSS and SVG, no JavaScript, nothing loaded
// from the network) or as GitHub Markdown. The renderers take the findings as
// given: the rules are evaluated by the caller.

#include <string>
#include <vector>

#include "advisor/findings.h"
#include "metrics/analysis.h"
#include "metrics/diff.h"
#include "model/snapshot.h"
#include "metrics/whatif.h"
#include "writers/heatmap/heatmap_svg.h"

namespace cookgraph {

/// Everything one report shows. References must outlive the render call.
struct ReportInput {
  std::string file;  // the input path as given ("-" for standard input)
  const Snapshot& snapshot;
  const Analysis& analysis;
  const std::vector<Finding>& findings;
  std::string advice;       // the LLM's answer; "" = none
  std::string advice_note;  // one line shown when `advice` is empty (why, and how to get it)
  size_t top = 20;          // rows of the top-nodes table and chart
  /// `report --baseline FILE`: the comparison of this snapshot with FILE, shown
  /// as its own section; nullptr = none.
  const SnapshotDiff* comparison = nullptr;
  std::string baseline_file;  // FILE as given
  /// The network heatmap (DrawHeatmap), shown inline by the HTML report;
  /// nullptr = not drawn, and `heatmap_note` says why.
  const Heatmap* heatmap = nullptr;
  std::string heatmap_note;
  /// "What pays to fix" (docs/commands.md#cookgraph-report): the nodes that
  /// pay most (Judged::gains, advisor/gains.h), of which the first kGainRows
  /// are listed, and the what-if model of `snapshot` and `analysis`
  /// (metrics/whatif.h) that draws the frames without the first; either
  /// nullptr = no such section. The node tables' gain column is
  /// `analysis.gain_ms`, shown when it is not empty.
  const TopGains* gains = nullptr;
  const WhatIf* whatif = nullptr;
};

/// The report as one HTML document. Every string from the input is escaped.
std::string RenderReportHtml(const ReportInput& input);

/// The report as GitHub-flavoured Markdown. Every string from the input is
/// escaped so that it renders as text and cannot break a table.
std::string RenderReportMarkdown(const ReportInput& input);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_RENDERERS_H_
