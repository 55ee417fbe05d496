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

/// Horizontal bars of per_frame_ms for `rows`, labelled by id.
std::string TopNodesChart(const Snapshot& snapshot, const Analysis& analysis,
                          const std::vector<TopRow>& rows);

inline constexpr size_t kMaxChartColumns = 1200;

}  // namespace cookgraph::report_internal

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_SVG_H_
