#ifndef COOKGRAPH_ADVISOR_REPORT_REPORT_TIMELINE_H_
#define COOKGRAPH_ADVISOR_REPORT_REPORT_TIMELINE_H_

// Internal to advisor/: a trace's pictures for the HTML report, as inline SVG
// (no script): the timeline of one step, one lane per CPU thread and GPU
// stream, and the GPU time of each rank as stacked bars
// (docs/architecture.md#gpu-time).

#include <cstddef>
#include <string>

#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph::report_internal {

/// The events of step `frame` (a position in the snapshot's frames) of the
/// first rank: one lane per thread and stream, CPU nesting as rows within a
/// lane (up to kTimelineDepth). Events closer than a pixel on one row are drawn
/// as one box whose tooltip counts them; every name is escaped. "" when the
/// snapshot has no timeline or the step has no events.
std::string StepTimelineSvg(const Snapshot& snapshot, size_t frame);

/// Per rank, the kernel span split into computation, other kernels and idle
/// (host wait, kernel wait, other, in proportion to the streams' idle time).
/// "" without GPU time.
std::string GpuBreakdownSvg(const TraceSummary& trace);

inline constexpr size_t kTimelineDepth = 4;

}  // namespace cookgraph::report_internal

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_TIMELINE_H_
