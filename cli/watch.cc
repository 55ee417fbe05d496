// `cookgraph watch --listen udp://HOST:PORT`: live mode. A receiving thread
// (live/udp_receiver.h) moves datagrams off the socket; this thread decodes
// them, keeps the rolling window, raises alerts on standard error and, on a
// terminal, redraws the ranked table in place. At the end (--frames,
// --duration, Ctrl-C or SIGTERM) it prints the final table or JSON document
// and writes --record.

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <deque>
#include <optional>
#include <thread>

#include "adapters/score_writers.h"
#include "adapters/snapshot_writer.h"
#include "adapters/text.h"
#include "advisor/settings.h"
#include "cli/command.h"
#include "live/alerts.h"
#include "live/decode.h"
#include "live/summary.h"
#include "live/udp_receiver.h"
#include "live/window.h"
#include "metrics/analysis.h"

namespace cookgraph::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct WatchArgs {
  std::string listen;
  std::optional<size_t> window;
  std::optional<double> node_ms, budget_ms;
  std::optional<size_t> quiet_frames;
  std::optional<uint64_t> frames;
  std::optional<double> duration_s;
  std::string record;
  std::string format = "table";
  int top = -1;
  std::string sort = "score";
  double refresh_s = 1;
  std::string engine = "live";
  std::string name;
};

constexpr size_t kDefaultWindow = 600;  // 10 s at 60 fps
constexpr size_t kDefaultQuietFrames = 30;
constexpr int kShownMalformed = 3;   // malformed datagrams reported one by one
constexpr uint64_t kShownGaps = 3;   // gaps in the frame numbers reported one by one
constexpr size_t kRecentAlerts = 5;  // alert lines kept on the live screen

std::atomic<int> g_stop_signal{0};
extern "C" void OnStopSignal(int signal_number) { g_stop_signal.store(signal_number); }

// SIGINT and SIGTERM end watching cleanly (the final table, --record); a
// signal the parent ignores (nohup) stays ignored.
void CatchStopSignals(bool on) {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction action = {};
    sigaction(sig, nullptr, &action);
    if (action.sa_handler == SIG_IGN) continue;
    action.sa_handler = on ? OnStopSignal : SIG_DFL;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(sig, &action, nullptr);
  }
}

std::string NowIso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

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

class Watcher {
 public:
  Watcher(const WatchArgs& args, const ListenAddress& address, size_t window,
          AlertThresholds thresholds, SnapshotInfo info)
      : args_(args),
        url_(address.url),
        info_(std::move(info)),
        window_(window, !args.record.empty()),
        alerts_(thresholds) {
    window_.OnFrame([this](const LiveFrame& frame) {
      last_at_ = Clock::now();
      if (!first_at_) first_at_ = last_at_;
      for (size_t i : alerts_.Observe(frame, window_.ids())) {
        std::string line = "cookgraph: alert: " + AlertLine(alerts_.episodes()[i]);
        std::fprintf(stderr, "%s\n", line.c_str());
        recent_alerts_.push_back(std::move(line));
        if (recent_alerts_.size() > kRecentAlerts) recent_alerts_.pop_front();
      }
    });
  }

  // Decodes and adds a batch of datagrams; true once --frames N is reached.
  bool Process(const std::vector<std::string>& datagrams) {
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

  bool Done() const { return args_.frames && window_.counts().frames >= *args_.frames; }

  void Finish(const UdpReceiver& receiver) {
    if (!Done()) window_.Flush();
    received_.kernel_drops = receiver.kernel_drops();
    received_.truncated = receiver.truncated();
  }

  void Draw() {
    Snapshot snapshot = window_.WindowSnapshot(info_);
    Analysis analysis = Analyse(snapshot);
    ScoreOptions options = Options();
    const size_t rows = TerminalRows();
    options.top = rows > 12 ? rows - 12 : 1;
    std::string screen = "\x1b[H\x1b[2J" + StatusText() + "\n";
    screen += RenderScoreSnapshot(ScoreFormat::kTable, {url_, snapshot, analysis}, options);
    std::string footer;
    for (const std::string& line : recent_alerts_) footer += line + "\n";
    screen = FirstLines(screen, std::max<size_t>(rows, 8) - 1 - recent_alerts_.size()) + footer;
    WriteStdout(screen);
    std::fflush(stdout);
  }

  // The final table or JSON document on standard output.
  bool PrintResult(double seconds, bool clear_screen) {
    Snapshot snapshot = window_.WindowSnapshot(info_);
    Analysis analysis = Analyse(snapshot);
    ScoreOptions options = Options();
    std::string out;
    if (args_.format == "json") {
      options.top = args_.top >= 0 ? static_cast<size_t>(args_.top) : 0;
      out =
          "{\"cookgraph\":1,\"watch\":" +
          WatchJson(url_, window_.window(), window_.counts(), received_, alerts_, seconds, Rate()) +
          ",\"snapshots\":[" +
          RenderScoreSnapshot(ScoreFormat::kJson, {url_, snapshot, analysis}, options) +
          RenderScoreFooter(ScoreFormat::kJson, {});
    } else {
      if (clear_screen) out = "\x1b[H\x1b[2J";
      out += StatusText() + "\n" +
             RenderScoreSnapshot(ScoreFormat::kTable, {url_, snapshot, analysis}, options);
    }
    return WriteStdout(out) && std::fflush(stdout) == 0;
  }

  int Summarise() {
    std::string line = "cookgraph: watched " + url_ + ": " +
                       StatusLine(window_.counts(), received_, alerts_.episodes().size(), Rate());
    std::fprintf(stderr, "%s\n", line.c_str());
    if (received_.malformed > 0) {
      std::string first = TruncateMiddle(Printable(first_malformed_), 400);
      std::fprintf(stderr, "cookgraph: error: %s malformed datagram(s), the first: %s\n",
                   Thousands(received_.malformed).c_str(), first.c_str());
    }
    return received_.malformed > 0 || received_.truncated > 0 ? kExitInput : kExitOk;
  }

  int Record() {
    if (args_.record.empty()) return kExitOk;
    if (window_.counts().frames == 0) {
      PrintWarning(args_.record, "no frame was received: not written");
      return kExitOk;
    }
    Snapshot snapshot = window_.RecordSnapshot(info_);
    Status written = WriteSnapshotFile(snapshot, args_.record);
    if (!written) {
      PrintError(written.error());
      return kExitInput;
    }
    std::fprintf(stderr, "cookgraph: wrote %s (%zu nodes, %zu frames)\n", args_.record.c_str(),
                 snapshot.network.size(), snapshot.samples.frame_count());
    return kExitOk;
  }

 private:
  ScoreOptions Options() const {
    ScoreOptions options;
    options.sort = *ParseSortKey(args_.sort);  // CLI11 checked the choice
    options.top = args_.top >= 0 ? static_cast<size_t>(args_.top) : 20;
    options.color = args_.format == "table" && UseColor();
    return options;
  }

  std::string StatusText() const {
    return url_ + " · " +
           StatusLine(window_.counts(), received_, alerts_.episodes().size(), Rate()) +
           " · window " + Thousands(window_.window()) + " frames";
  }

  // Frames (last, next) exclusive never arrived: said for the first few gaps.
  void Gap(int64_t last, int64_t next) {
    const uint64_t gaps = window_.counts().gaps;
    if (gaps > kShownGaps) return;
    std::string text = next - last == 2 ? "frame " + std::to_string(last + 1) + " was lost"
                                        : "frames " + std::to_string(last + 1) + "-" +
                                              std::to_string(next - 1) + " were lost";
    text += " (a datagram lost on the way, or a frame the engine dropped)";
    if (gaps == kShownGaps) text += "; further gaps are counted, not shown";
    PrintWarning(url_, text);
  }

  void Malformed(const Error& error) {
    ++received_.malformed;
    std::string text = "datagram " + Thousands(received_.datagrams);
    if (error.line > 0) text += ", line " + std::to_string(error.line);
    if (error.column > 0) text += ", column " + std::to_string(error.column);
    if (!error.where.empty()) text += ", " + error.where;
    text += ": " + error.message;
    if (received_.malformed == 1) first_malformed_ = text;
    if (received_.malformed <= kShownMalformed) {
      PrintWarning(url_, text + (received_.malformed == kShownMalformed
                                     ? " (further malformed datagrams are counted, not shown)"
                                     : ""));
    }
  }

  // Frames per second between the first and the last frame's arrival; 0 until two came.
  double Rate() const {
    const double span =
        first_at_ ? std::chrono::duration<double>(last_at_ - *first_at_).count() : 0.0;
    const uint64_t frames = window_.counts().frames;
    return span > 0 && frames > 1 ? static_cast<double>(frames - 1) / span : 0.0;
  }

  const WatchArgs& args_;
  std::string url_;
  std::optional<Clock::time_point> first_at_;
  Clock::time_point last_at_;
  SnapshotInfo info_;
  LiveWindow window_;
  AlertTracker alerts_;
  ReceiveCounts received_;
  std::vector<FrameRecord> records_;  // scratch, reused per datagram
  std::deque<std::string> recent_alerts_;
  std::string first_malformed_;
};

int RunWatch(const WatchArgs& args) {
  Result<AdvisorSettings> settings = LoadSettings(ProcessEnvironment());
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  const WatchSettings& config = settings->watch;
  const std::string listen = !args.listen.empty() ? args.listen : config.listen;
  if (listen.empty()) {
    PrintError(Error{.where = "--listen",
                     .message = "where to listen is not given: --listen udp://HOST:PORT (e.g. "
                                "udp://127.0.0.1:9000), or watch.listen in ./cookgraph.yaml"});
    return kExitInput;
  }
  Result<ListenAddress> address = ParseListenUrl(listen);
  if (!address) {
    Error error = address.error();
    if (args.listen.empty()) {  // it came from the config file: name that place
      error.where = "watch.listen";
      if (!settings->files_read.empty()) error.file = settings->files_read.back();
    }
    PrintError(error);
    return kExitInput;
  }
  Result<std::unique_ptr<UdpReceiver>> receiver = UdpReceiver::Open(*address);
  if (!receiver) {
    PrintError(receiver.error());
    return kExitInput;
  }
  UdpReceiver& socket = **receiver;

  AlertThresholds thresholds;
  thresholds.node_ms = args.node_ms ? args.node_ms : config.node_ms;
  const double budget_ms = args.budget_ms.value_or(config.budget_ms.value_or(kDefaultBudgetMs));
  thresholds.budget_ms = budget_ms;
  thresholds.quiet_frames =
      args.quiet_frames.value_or(config.quiet_frames.value_or(kDefaultQuietFrames));
  const size_t window = args.window.value_or(config.window.value_or(kDefaultWindow));

  // The URL with the bound port, so that PORT 0 tells the sender where to send.
  std::string where = address->url;
  if (address->port == 0) {
    where = where.substr(0, where.rfind(':') + 1) + std::to_string(socket.port());
  }
  SnapshotInfo info;
  info.engine = args.engine;
  info.name = args.name.empty() ? "live " + where : args.name;
  info.source = {where};
  info.captured = NowIso8601();
  info.frame_budget_ms = budget_ms;
  // The kernel reports twice the size asked for (its bookkeeping); less than
  // that means net.core.rmem_max capped it (not root).
  std::string buffer_text = std::to_string(socket.receive_buffer() / 1024) + " KiB";
  if (socket.receive_buffer() < kDefaultReceiveBuffer) {
    buffer_text += ", less than the " + std::to_string(kDefaultReceiveBuffer / 1024) +
                   " KiB asked for: raise it with sysctl -w net.core.rmem_max=" +
                   std::to_string(kDefaultReceiveBuffer);
  }
  char node_text[64] = "";
  if (thresholds.node_ms) {
    std::snprintf(node_text, sizeof node_text, ", node alert over %.3f ms", *thresholds.node_ms);
  }
  std::fprintf(stderr,
               "cookgraph: listening on %s (receive buffer %s), window %zu frames, budget "
               "%.3f ms%s; JSON lines or OSC bundles (cookgraph watch --help); Ctrl-C stops\n",
               where.c_str(), buffer_text.c_str(), window, budget_ms, node_text);
  std::fflush(stderr);

  ListenAddress shown = *address;
  shown.url = where;
  Watcher watcher(args, shown, window, thresholds, std::move(info));
  const bool live_screen = args.format == "table" && isatty(STDOUT_FILENO) == 1;
  g_stop_signal.store(0);
  CatchStopSignals(true);
  socket.Start();
  const Clock::time_point start = Clock::now();
  const auto refresh =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(args.refresh_s));
  Clock::time_point next_draw = start + refresh;
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<std::string> batch;
  bool done = false;
  while (!done) {
    if (g_stop_signal.load() != 0) break;
    if (args.duration_s && seconds() >= *args.duration_s) break;
    socket.Take(batch);
    done = watcher.Process(batch);
    if (live_screen && Clock::now() >= next_draw) {
      watcher.Draw();
      next_draw = std::max(next_draw + refresh, Clock::now());
    }
    if (batch.empty() && !done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  socket.Stop();  // reads what the socket still holds
  CatchStopSignals(false);
  if (!done) {
    socket.Take(batch);
    watcher.Process(batch);
  }
  watcher.Finish(socket);
  const double elapsed = seconds();
  const int signal_number = g_stop_signal.load();
  if (signal_number != 0) {
    std::fprintf(stderr, "cookgraph: %s: stopping\n",
                 signal_number == SIGINT ? "interrupted" : "terminated");
  }
  if (!watcher.PrintResult(elapsed, live_screen)) {
    std::fprintf(stderr, "cookgraph: error: cannot write to standard output\n");
    watcher.Record();
    return kExitInput;
  }
  int code = watcher.Summarise();
  if (int recorded = watcher.Record(); recorded != kExitOk) code = recorded;
  return code;
}

}  // namespace

std::function<int()> SetupWatch(CLI::App& sub) {
  auto args = std::make_shared<WatchArgs>();
  sub.add_option("--listen", args->listen,
                 "udp://HOST:PORT to receive per-frame cook metrics on (JSON lines or OSC "
                 "bundles; PORT 0 picks a free port)");
  sub.add_option("--window", args->window, "frames in the rolling window (default 600)")
      ->check(CLI::Range(size_t{1}, size_t{100000000}));
  sub.add_option("--node-ms", args->node_ms,
                 "alert when a node cooks longer than this in one frame (ms; default: no node "
                 "alerts)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--budget-ms", args->budget_ms,
                 "frame budget: alert when a frame takes longer (ms; default 16.667)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--quiet-frames", args->quiet_frames,
                 "frames back under a threshold that end an alert's episode (default 30)")
      ->check(CLI::Range(size_t{1}, size_t{100000000}));
  sub.add_option("--frames", args->frames, "stop after N complete frames")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 62));
  sub.add_option("--duration", args->duration_s, "stop after S seconds")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--record", args->record,
                 "write every frame received to FILE as a native snapshot (.json, .json.gz, "
                 ".yaml), also when stopped by Ctrl-C");
  sub.add_option("--format", args->format, "the final output: table or json (default table)")
      ->check(CLI::IsMember({"table", "json"}));
  sub.add_option("--top", args->top, "rows of the table (default 20, on a terminal: what fits)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--sort", args->sort,
                 "ranking key: score, avg, p95, max, per-frame, gpu, upstream")
      ->check(CLI::IsMember({"score", "avg", "p95", "max", "per-frame", "gpu", "upstream"}));
  sub.add_option("--refresh", args->refresh_s, "seconds between redraws on a terminal (default 1)")
      ->check(CLI::Range(0.05, 3600.0));
  sub.add_option("--engine", args->engine, "the engine named in --record (default live)");
  sub.add_option("--name", args->name, "the name in --record (default \"live URL\")");
  sub.footer(
      "Messages, one per UDP datagram:\n"
      "  JSON lines: {\"frame\": 1201, \"frame_ms\": 16.4, \"nodes\": {\"/p/noise1\": 0.61,\n"
      "               \"/p/comp1\": {\"cook_ms\": 1.2, \"gpu_ms\": 0.9, \"cooks\": 2}}}\n"
      "  OSC: a bundle per frame: /cookgraph/frame i [f frame_ms], then per node that cooked\n"
      "       /cookgraph/cook s f [f|N [i]] (id, cook_ms, gpu_ms or nil, cooks)\n"
      "  A frame too big for one datagram goes in parts: \"more\": true or /cookgraph/more in\n"
      "  all but the last. Full description: README, \"cookgraph watch\".\n"
      "On a terminal the table is redrawn every second; otherwise only the final result is\n"
      "printed. Alerts go to standard error, once per episode.\n"
      "Examples:\n"
      "  cookgraph watch --listen udp://127.0.0.1:9000 --node-ms 5\n"
      "  cookgraph watch --listen udp://0.0.0.0:9000 --duration 60 --record live.json\n"
      "  cookgraph watch --listen udp://127.0.0.1:9000 --frames 600 --format json > last.json");
  return [args] { return RunWatch(*args); };
}

}  // namespace cookgraph::cli
