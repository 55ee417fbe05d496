#ifndef COOKGRAPH_CLI_WATCH_SESSION_H_
#define COOKGRAPH_CLI_WATCH_SESSION_H_

// What `cookgraph watch` does with the datagrams it receives: decode them,
// keep the rolling window, raise alerts on standard error, draw the live
// table, and at the end print the result and write --record. The socket and
// the main loop are watch.cc's.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "live/alerts.h"
#include "live/frame_record.h"
#include "live/summary.h"
#include "live/udp_receiver.h"
#include "live/window.h"
#include "model/snapshot.h"
#include "writers/score.h"

namespace cookgraph::cli {

struct WatchSessionOptions {
  std::string url;  // as messages name it, with the bound port
  size_t window = 600;
  AlertThresholds thresholds;
  SnapshotInfo info;               // of the window and the record
  std::optional<uint64_t> frames;  // stop after this many complete frames
  std::string record;              // "" = no --record
  bool json = false;               // --format json, else the table
  int top = -1;                    // rows; -1 = the format's default
  std::string sort = "score";
};

class WatchSession {
 public:
  explicit WatchSession(WatchSessionOptions options);
  WatchSession(const WatchSession&) = delete;
  WatchSession& operator=(const WatchSession&) = delete;

  /// Decodes and adds a batch of datagrams; true once --frames N is reached
  /// (what comes after is counted as ignored).
  bool Process(const std::vector<std::string>& datagrams);
  bool Done() const;
  /// The end of the stream: closes an open frame, takes the receiver's counts.
  void Finish(const UdpReceiver& receiver);

  /// Redraws the live table in place (standard output is a terminal).
  void Draw();
  /// The final table or JSON document on standard output; false when it
  /// cannot be written. `clear_screen` replaces the live table.
  bool PrintResult(double seconds, bool clear_screen);
  /// The summary line (and the first malformed datagram) on standard error;
  /// the exit code: kExitInput when datagrams were malformed or truncated.
  int Summarise();
  /// Writes --record; the exit code.
  int Record();

  /// For `watch --serve` (docs/commands.md#watch---serve): what the page shows.
  struct Live {
    Snapshot window;                  // the rolling window as a snapshot
    std::vector<std::string> alerts;  // the recent alert lines, oldest first
    std::string status;               // the status line
  };
  /// The window now, or nullopt when no frame completed since the last call.
  std::optional<Live> TakeLive();

 private:
  using Clock = std::chrono::steady_clock;

  ScoreOptions Options() const;
  std::string StatusText() const;
  void Gap(int64_t last, int64_t next);
  void Malformed(const Error& error);
  double Rate() const;

  WatchSessionOptions o_;
  std::optional<Clock::time_point> first_at_;  // arrival of the first complete frame
  Clock::time_point last_at_;                  // and of the last
  LiveWindow window_;
  AlertTracker alerts_;
  ReceiveCounts received_;
  std::vector<FrameRecord> records_;  // scratch, reused per datagram
  std::deque<std::string> recent_alerts_;
  uint64_t frames_seen_ = 0;    // complete frames so far (OnFrame)
  uint64_t frames_served_ = 0;  // frames_seen_ at the last TakeLive()
  std::string first_malformed_;
};

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_WATCH_SESSION_H_
