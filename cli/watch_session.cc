#include "cli/watch_session.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/text.h"
#include "cli/command.h"
#include "live/decode.h"
#include "metrics/analysis.h"
#include "writers/score.h"
#include "writers/snapshot_writer.h"

namespace cookgraph::cli {
namespace {

constexpr int kShownMalformed = 3;   // malformed datagrams reported one by one
constexpr uint64_t kShownGaps = 3;   // gaps in the frame numbers reported one by one
constexpr size_t kRecentAlerts = 5;  // alert lines kept on the live screen

size_t TerminalRows() {
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0) return size.ws_row;
  return 24;
}

// The first `rows` lines of `text`.
std::string FirstLines(const std::string& text, size_t rows) {
  size_t at = 0;
  for (size_t i = 0; i < rows && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? text : text.substr(0, at);
}

}  // namespace

WatchSession::WatchSession(WatchSessionOptions options)
    : o_(std::move(options)), window_(o_.window, !o_.record.empty()), alerts_(o_.thresholds) {
  window_.OnFrame([this](const LiveFrame& frame) {
    last_at_ = Clock::now();
    if (!first_at_) first_at_ = last_at_;
    ++frames_seen_;
    for (size_t i : alerts_.Observe(frame, window_.ids())) {
      std::string line = "cookgraph: alert: " + AlertLine(alerts_.episodes()[i]);
      std::fprintf(stderr, "%s\n", line.c_str());
      recent_alerts_.push_back(std::move(line));
      if (recent_alerts_.size() > kRecentAlerts) recent_alerts_.pop_front();
    }
  });
}

bool WatchSession::Process(const std::vector<std::string>& datagrams) {
  for (const std::string& datagram : datagrams) {
    ++received_.datagrams;
    records_.clear();
    Status decoded = DecodeDatagram(datagram, records_);
    for (FrameRecord& record : records_) {
      if (Done()) {
        ++received_.ignored;
        continue;
      }
      const StreamCounts before = window_.counts();
      const int64_t frame = record.frame;
      window_.Add(std::move(record));
      if (window_.counts().gaps > before.gaps) Gap(*before.last_frame, frame);
    }
    if (!decoded) Malformed(decoded.error());
  }
  return Done();
}

bool WatchSession::Done() const { return o_.frames && window_.counts().frames >= *o_.frames; }

void WatchSession::Finish(const UdpReceiver& receiver) {
  if (!Done()) window_.Flush();
  received_.kernel_drops = receiver.kernel_drops();
  received_.truncated = receiver.truncated();
}

void WatchSession::Draw() {
  Snapshot snapshot = window_.WindowSnapshot(o_.info);
  Analysis analysis = Analyse(snapshot);
  ScoreOptions options = Options();
  const size_t rows = TerminalRows();
  options.top = rows > 12 ? rows - 12 : 1;
  std::string screen = "\x1b[H\x1b[2J" + StatusText() + "\n";
  screen += RenderScoreSnapshot(ScoreFormat::kTable, {o_.url, snapshot, analysis}, options);
  std::string footer;
  for (const std::string& line : recent_alerts_) footer += line + "\n";
  screen = FirstLines(screen, std::max<size_t>(rows, 8) - 1 - recent_alerts_.size()) + footer;
  WriteStdout(screen);
  std::fflush(stdout);
}

bool WatchSession::PrintResult(double seconds, bool clear_screen) {
  Snapshot snapshot = window_.WindowSnapshot(o_.info);
  Analysis analysis = Analyse(snapshot);
  ScoreOptions options = Options();
  std::string out;
  if (o_.json) {
    options.top = o_.top >= 0 ? static_cast<size_t>(o_.top) : 0;
    out =
        "{\"cookgraph\":1,\"watch\":" +
        WatchJson(o_.url, window_.window(), window_.counts(), received_, alerts_, seconds, Rate()) +
        ",\"snapshots\":[" +
        RenderScoreSnapshot(ScoreFormat::kJson, {o_.url, snapshot, analysis}, options) +
        RenderScoreFooter(ScoreFormat::kJson, {});
  } else {
    if (clear_screen) out = "\x1b[H\x1b[2J";
    out += StatusText() + "\n" +
           RenderScoreSnapshot(ScoreFormat::kTable, {o_.url, snapshot, analysis}, options);
  }
  return WriteStdout(out) && std::fflush(stdout) == 0;
}

int WatchSession::Summarise() {
  std::string line = "cookgraph: watched " + o_.url + ": " +
                     StatusLine(window_.counts(), received_, alerts_.episodes().size(), Rate());
  std::fprintf(stderr, "%s\n", line.c_str());
  if (received_.malformed > 0) {
    std::string first = ClipMiddle(first_malformed_, 400);
    std::fprintf(stderr, "cookgraph: error: %s malformed datagram(s), the first: %s\n",
                 Thousands(received_.malformed).c_str(), first.c_str());
  }
  return received_.malformed > 0 || received_.truncated > 0 ? kExitInput : kExitOk;
}

int WatchSession::Record() {
  if (o_.record.empty()) return kExitOk;
  Result<Snapshot> snapshot = window_.RecordSnapshot(o_.info);
  if (!snapshot) {
    PrintWarning(o_.record, snapshot.error().message);
    return kExitOk;
  }
  Status written = WriteSnapshotFile(*snapshot, o_.record);
  if (!written) {
    PrintError(written.error());
    return kExitInput;
  }
  std::fprintf(stderr, "cookgraph: wrote %s (%zu nodes, %zu frames)\n", o_.record.c_str(),
               snapshot->network.size(), snapshot->samples.frame_count());
  return kExitOk;
}

std::optional<WatchSession::Live> WatchSession::TakeLive() {
  if (frames_seen_ == frames_served_) return std::nullopt;
  frames_served_ = frames_seen_;
  return Live{.window = window_.WindowSnapshot(o_.info),
              .alerts = {recent_alerts_.begin(), recent_alerts_.end()},
              .status = StatusText()};
}

ScoreOptions WatchSession::Options() const {
  ScoreOptions options;
  options.sort = *ParseSortKey(o_.sort);  // CLI11 checked the choice
  options.top = o_.top >= 0 ? static_cast<size_t>(o_.top) : 20;
  options.color = !o_.json && UseColor();
  return options;
}

std::string WatchSession::StatusText() const {
  return o_.url + " · " +
         StatusLine(window_.counts(), received_, alerts_.episodes().size(), Rate()) + " · window " +
         Thousands(window_.window()) + " frames";
}

// Frames (last, next) exclusive never arrived: said for the first few gaps.
void WatchSession::Gap(int64_t last, int64_t next) {
  const uint64_t gaps = window_.counts().gaps;
  if (gaps > kShownGaps) return;
  std::string text = next - last == 2 ? "frame " + std::to_string(last + 1) + " was lost"
                                      : "frames " + std::to_string(last + 1) + "-" +
                                            std::to_string(next - 1) + " were lost";
  text += " (a datagram lost on the way, or a frame the engine dropped)";
  if (gaps == kShownGaps) text += "; further gaps are counted, not shown";
  PrintWarning(o_.url, text);
}

void WatchSession::Malformed(const Error& error) {
  ++received_.malformed;
  std::string text = "datagram " + Thousands(received_.datagrams);
  if (error.line > 0) text += ", line " + std::to_string(error.line);
  if (error.column > 0) text += ", column " + std::to_string(error.column);
  if (!error.where.empty()) text += ", " + error.where;
  text += ": " + error.message;
  if (received_.malformed == 1) first_malformed_ = text;
  if (received_.malformed <= kShownMalformed) {
    PrintWarning(o_.url, text + (received_.malformed == kShownMalformed
                                     ? " (further malformed datagrams are counted, not shown)"
                                     : ""));
  }
}

// Frames per second between the first and the last frame's arrival; 0 until two came.
double WatchSession::Rate() const {
  const double span =
      first_at_ ? std::chrono::duration<double>(last_at_ - *first_at_).count() : 0.0;
  const uint64_t frames = window_.counts().frames;
  return span > 0 && frames > 1 ? static_cast<double>(frames - 1) / span : 0.0;
}

}  // namespace cookgraph::cli
