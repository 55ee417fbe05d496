#ifndef COOKGRAPH_LIVE_SUMMARY_H_
#define COOKGRAPH_LIVE_SUMMARY_H_

// Words and JSON about a live stream: the alert line, the status line above
// the live table, and the "watch" object of `cookgraph watch --format json`.

#include <cstdint>
#include <string>

#include "live/alerts.h"
#include "live/window.h"

namespace cookgraph {

/// What the receiving side counted, besides the frames.
struct ReceiveCounts {
  uint64_t datagrams = 0;     // received and handed to the decoder
  uint64_t malformed = 0;     // datagrams (or JSON lines) that did not decode
  uint64_t kernel_drops = 0;  // dropped by the kernel: the receive buffer was full
  uint64_t truncated = 0;     // longer than a UDP datagram can be
  uint64_t ignored = 0;       // arrived after --frames N was reached
};

/// "frame 1234: /p/script1 cooked 19.692 ms, over watch.node_ms 5 ms" or
/// "frame 1234: frame time 21.5 ms, over the 16.667 ms budget".
std::string AlertLine(const AlertEpisode& episode);

/// "10,000 frames (1-10000) · 600.2/s · 0 lost · 0 late · 0 malformed · 1 alert";
/// `frames_per_second` is the rate at which frames arrived (0 = not known yet).
std::string StatusLine(const StreamCounts& counts, const ReceiveCounts& received,
                       size_t alert_count, double frames_per_second);

/// The "watch" object: the listen URL, the window, the seconds watched, the
/// arrival rate, every count, the alert episodes.
std::string WatchJson(const std::string& url, size_t window, const StreamCounts& counts,
                      const ReceiveCounts& received, const AlertTracker& alerts, double seconds,
                      double frames_per_second);

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_SUMMARY_H_
