#ifndef COOKGRAPH_LIVE_DECODE_H_
#define COOKGRAPH_LIVE_DECODE_H_

// Decoding one datagram of the live protocol into FrameRecords. The wire form
// is told from the first byte: '#' starts an OSC bundle ("#bundle"), anything
// else is read as JSON lines (one object per line).

#include <string_view>
#include <vector>

#include "base/error.h"
#include "live/frame_record.h"

namespace cookgraph {

/// Appends the frames of one JSON-lines datagram to `out`. Each non-blank line
/// is one object:
///   {"frame": 12, "frame_ms": 16.4, "more": false,
///    "nodes": {"/p/a": 0.61, "/p/b": {"cook_ms": 1.2, "gpu_ms": 0.9, "cooks": 2}}}
/// On a bad line, the lines before it stay appended and the error's `where`
/// is "line N" (with a column for a syntax error).
Status DecodeJsonLines(std::string_view datagram, std::vector<FrameRecord>& out);

/// Appends the frame of one OSC bundle to `out`. The bundle holds
/// /cookgraph/frame i [f], then /cookgraph/cook s f [f|N [i]] per node (id,
/// cook_ms, gpu_ms or nil, cooks), and
/// /cookgraph/more when further parts of the frame follow (docs/commands.md#cookgraph-watch).
Status DecodeOscBundle(std::string_view datagram, std::vector<FrameRecord>& out);

/// Either of the above, by the first byte.
Status DecodeDatagram(std::string_view datagram, std::vector<FrameRecord>& out);

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_DECODE_H_
