// `cookgraph watch --listen udp://HOST:PORT`: live mode. A receiving thread
// (live/udp_receiver.h) moves datagrams off the socket; this thread decodes
// them, keeps the rolling window, raises alerts on standard error and, on a
// terminal, redraws the ranked table in place. At the end (--frames,
// --duration, Ctrl-C or SIGTERM) it prints the final table or JSON document
// and writes --record.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>
#include <thread>

#include "advisor/settings.h"
#include "cli/command.h"
#include "cli/serve.h"
#include "cli/watch_session.h"
#include "live/alerts.h"
#include "live/udp_receiver.h"
#include "pipeline/pipeline.h"

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
  std::optional<int> serve;  // --serve [PORT]: the explorer, live
  ServeFlags serve_flags;     // --serve-listen, --allow-remote, --open
};

constexpr size_t kDefaultWindow = 600;  // 10 s at 60 fps
constexpr size_t kDefaultQuietFrames = 30;

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

// Where to listen: --listen, else watch.listen of the settings; nullopt (the
// error printed, naming the place it came from) when neither gives a valid URL.
std::optional<ListenAddress> WhereToListen(const WatchArgs& args,
                                           const AdvisorSettings& settings) {
  const std::string listen = !args.listen.empty() ? args.listen : settings.watch.listen;
  if (listen.empty()) {
    PrintError(Error{.where = "--listen",
                     .message = "where to listen is not given: --listen udp://HOST:PORT (e.g. "
                                "udp://127.0.0.1:9000), or watch.listen in ./cookgraph.yaml"});
    return std::nullopt;
  }
  Result<ListenAddress> address = ParseListenUrl(listen);
  if (!address) {
    Error error = address.error();
    if (args.listen.empty()) {  // it came from the config file: name that place
      error.where = "watch.listen";
      if (!settings.files_read.empty()) error.file = settings.files_read.back();
    }
    PrintError(error);
    return std::nullopt;
  }
  return std::move(*address);
}

// The line on standard error that says where the frames go and what is watched.
void AnnounceListening(const std::string& where, const UdpReceiver& socket, size_t window,
                       double budget_ms, const AlertThresholds& thresholds) {
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
}

// --serve: the explorer on the rolling window, redrawn as frames arrive
// (docs/commands.md#watch---serve); the page is told within 250 ms. The
// exit code when the server cannot start (the error printed: 1 without its
// module, 2 for an address), else kExitOk (also without --serve).
int ServeTheWindow(const WatchArgs& args, const AdvisorSettings& settings, const std::string& where,
                   std::unique_ptr<server::Explorer>& explorer,
                   std::unique_ptr<server::ExplorerServer>& web) {
  if (!args.serve) return kExitOk;
  if (!ServerModuleLoads()) return kExitInternal;  // a broken install
  ServeFlags flags = args.serve_flags;
  flags.port = *args.serve;
  flags.listen_flag = "--serve-listen";
  Result<server::ServeOptions> options = MakeServeOptions(flags);
  if (!options) {
    PrintError(options.error());
    return kExitInput;
  }
  explorer = std::make_unique<server::Explorer>(
      server::Dataset{.live = true, .status = "waiting for frames on " + where},
      MakeAskHooks(settings));
  web = std::make_unique<server::ExplorerServer>(*explorer, *options);
  std::signal(SIGPIPE, SIG_IGN);  // a page that leaves mid-stream
  if (Status started = web->Start(); !started) {
    PrintError(started.error());
    return kExitInput;
  }
  AnnounceServer(*web, flags.open);
  return kExitOk;
}

int RunWatch(const WatchArgs& args) {
  Result<AdvisorSettings> settings = LoadSettings(ProcessEnvironment());
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  const WatchSettings& config = settings->watch;
  const std::optional<ListenAddress> address = WhereToListen(args, *settings);
  if (!address) return kExitInput;
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
  AnnounceListening(where, socket, window, budget_ms, thresholds);

  WatchSession watcher({.url = where,
                        .window = window,
                        .thresholds = thresholds,
                        .info = info,
                        .frames = args.frames,
                        .record = args.record,
                        .json = args.format == "json",
                        .top = args.top,
                        .sort = args.sort});
  std::unique_ptr<server::Explorer> explorer;
  std::unique_ptr<server::ExplorerServer> web;
  if (const int failed = ServeTheWindow(args, *settings, where, explorer, web)) return failed;
  const auto publish_every = std::chrono::milliseconds(250);
  Clock::time_point next_publish = Clock::now();
  auto publish = [&] {
    std::optional<WatchSession::Live> live = watcher.TakeLive();
    if (!live) return;
    Judged judged;
    judged.snapshot = std::move(live->window);
    if (const pipeline::Outcome outcome =
            pipeline::JudgeSnapshot(judged, ExplorerAnalysis(std::nullopt), settings->pack);
        !outcome) {
      PrintError(outcome.failure().error);
      return;
    }
    explorer->Replace(server::Dataset{.views = {server::MakeView(info.name, std::move(judged))},
                                      .live = true,
                                      .alerts = std::move(live->alerts),
                                      .status = std::move(live->status)});
  };

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
    if (explorer && Clock::now() >= next_publish) {
      publish();
      next_publish = Clock::now() + publish_every;
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
  if (web) {
    publish();
    web->Stop();
  }
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
  sub.add_option("--serve", args->serve,
                 "also serve the explorer on http://127.0.0.1:PORT, updated as frames arrive "
                 "(default port 8765; 0 = any free port)")
      ->expected(0, 1)
      ->default_str("8765")
      ->check(CLI::Range(0, 65535));
  sub.add_option("--serve-listen", args->serve_flags.listen,
                 "the address --serve listens on (default 127.0.0.1; any other needs --allow-remote)");
  sub.add_flag("--allow-remote", args->serve_flags.allow_remote,
               "let --serve listen on a non-loopback address (the access token is always required there)");
  sub.add_flag("--no-token", args->serve_flags.no_token,
               "no access token for --serve on a loopback address (any local user can then use it)");
  sub.add_flag("--open", args->serve_flags.open, "open the explorer of --serve in the desktop's browser");
  sub.footer(
      "Messages, one per UDP datagram:\n"
      "  JSON lines: {\"frame\": 1201, \"frame_ms\": 16.4, \"nodes\": {\"/p/noise1\": 0.61,\n"
      "               \"/p/comp1\": {\"cook_ms\": 1.2, \"gpu_ms\": 0.9, \"cooks\": 2}}}\n"
      "  OSC: a bundle per frame: /cookgraph/frame i [f frame_ms], then per node that cooked\n"
      "       /cookgraph/cook s f [f|N [i]] (id, cook_ms, gpu_ms or nil, cooks)\n"
      "  A frame too big for one datagram goes in parts: \"more\": true or /cookgraph/more in\n"
      "  all but the last. Full description: docs/commands.md#cookgraph-watch.\n"
      "On a terminal the table is redrawn every second; otherwise only the final result is\n"
      "printed. Alerts go to standard error, once per episode.\n"
      "Examples:\n"
      "  cookgraph watch --listen udp://127.0.0.1:9000 --node-ms 5\n"
      "  cookgraph watch --listen udp://0.0.0.0:9000 --duration 60 --record live.json\n"
      "  cookgraph watch --listen udp://127.0.0.1:9000 --frames 600 --format json > last.json\n"
      "  cookgraph watch --listen udp://127.0.0.1:9000 --serve     (the explorer, live)");
  return [args] { return RunWatch(*args); };
}

}  // namespace cookgraph::cli
