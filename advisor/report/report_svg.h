#ifndef COOKGRAPH_ADVISOR_REPORT_REPORT_SVG_H_
#define COOKGRAPH_ADVISOR_REPORT_REPORT_SVG_H_

// Internal to advisor/: the report's charts as inline SVG elements, styled by
// the page's CSS classes (so they follow its light or dark colours) and with
// every label escaped. No script, no external reference.

#include <string>
#include <vector>

#include "advisor/report/report_model.h"

namespace cookgraph::report_internal {

/// Frame time (ms) per frame against the budget: a line per frame, the budget
/// as a dashed line, over-budget frames marked. Long captures are drawn by the
/// maximum of each of at most kMaxChartColumns columns, so spikes stay visible.
std::string FrameTimeChart(const Snapshot& snapshot, const Analysis& analysis);

/// FrameTimeChart of a what-if (metrics/whatif.h): the frames the model
/// starts from (`before_ms`, WhatIf::frame_ms), muted, and its prediction
/// `after_ms` drawn over them; the over-budget marks are the prediction's.
/// `title` is plain text (escaped here).
std::string WhatIfChart(const Snapshot& snapshot, const Analysis& analysis,
                        const std::vector<double>& before_ms, const std::vector<double>& after_ms,
                        const std::string& title);

/// Horizontal bars of per_frame_ms for `rows`, labelled by id.
std::string TopNodesChart(const Snapshot& snapshot, const Analysis& analysis,
                          const std::vector<TopRow>& rows);

inline constexpr size_t kMaxChartColumns = 1200;

/// A coordinate or a length with one decimal ("12.5"): enough for a screen,
/// and a smaller file. Every chart of the report writes its numbers so.
std::string SvgNumber(double v);

}  // namespace cookgraph::report_internal

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_SVG_H_
