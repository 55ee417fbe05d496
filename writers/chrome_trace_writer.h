#ifndef COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_
#define COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_

// `cookgraph trace`: a snapshot as a Chrome trace (Trace Event Format, JSON
// object form) that Perfetto and chrome://tracing open, which the Chrome reader
// reads back to the same nodes, cook_ms and cooks. The layout of frames,
// tracks and flows: docs/commands.md#cookgraph-trace.

#include <string>

#include "base/error.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

/// Writes the trace to `path` atomically ("-" = standard output).
Status WriteTraceFile(const Snapshot& snapshot, const Analysis& analysis, const std::string& path);

/// The trace as a string (tests, small networks).
std::string RenderTrace(const Snapshot& snapshot, const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_
