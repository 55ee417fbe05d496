// `cookgraph record [-o DIR] -- COMMAND [ARG...]`: runs a GStreamer pipeline
// (gst-launch-1.0, or any program built on GStreamer) with the tracers and the
// dump folder cookgraph reads, keeps the PLAYING dump and the log in DIR, and
// prints the score of the recording; `--env` prints the variables instead, for
// a pipeline started from one's own application
// (docs/commands.md#cookgraph-record).

#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "adapters/gstreamer/gstreamer.h"
#include "cli/command.h"

extern char** environ;

namespace cookgraph::cli {
namespace {

namespace fs = std::filesystem;

struct RecordArgs {
  std::string dir = "cookgraph-recording";
  bool env = false;
  std::vector<std::string> command;
};

// The tracers cookgraph reads (docs/formats.md#gstreamer): element and
// pipeline latency, each thread's CPU time, the .dot dumps, the log in a file.
std::vector<std::pair<std::string, std::string>> RecordingEnv(const std::string& dir) {
  return {{"GST_DEBUG_DUMP_DOT_DIR", dir},
          {"GST_TRACERS", "latency(flags=element+pipeline);rusage"},
          {"GST_DEBUG", "GST_TRACER:7"},
          {"GST_DEBUG_NO_COLOR", "1"},
          {"GST_DEBUG_FILE", (fs::path(dir) / "trace.log").string()}};
}

// `s` quoted for a POSIX shell: in single quotes, each ' written as '\''.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command line as one line, for messages.
std::string CommandText(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& word : command) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Removes what the failed recording left: DIR itself when this run made it,
// else the files it added.
void CleanUp(const fs::path& dir, bool made, const std::vector<fs::path>& before) {
  std::error_code ec;
  if (made) {
    fs::remove_all(dir, ec);
    return;
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (std::find(before.begin(), before.end(), entry.path()) == before.end()) {
      fs::remove_all(entry.path(), ec);
    }
  }
}

// Runs `command` with `env` added to this process's environment; its exit
// status as waitpid gives it, or the spawn error (errno).
struct Spawned {
  int status = 0;
  int error = 0;
};
Spawned Run(const std::vector<std::string>& command,
            const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view var(*e);
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const auto& kv) {
      return var.size() > kv.first.size() && var.substr(0, kv.first.size()) == kv.first &&
             var[kv.first.size()] == '=';
    });
    if (!replaced) vars.emplace_back(var);
  }
  for (const auto& [key, value] : env) vars.push_back(key + "=" + value);
  std::vector<char*> envp, argv;
  for (std::string& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = command;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // Ctrl-C reaches the pipeline (same process group); this process waits for
  // it to end and then cleans up.
  struct sigaction ignore {}, old_int {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  Spawned out;
  pid_t pid = 0;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  out.error = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (out.error == 0) {
    while (waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  return out;
}

int RunRecord(const RecordArgs& args) {
  const std::string where = "record";
  if (args.env) {
    // GStreamer makes neither the dump folder nor the log's: the first line does.
    const std::string dir = fs::absolute(args.dir).string();
    std::string text = "mkdir -p " + ShellQuote(dir) + "\n";
    for (const auto& [key, value] : RecordingEnv(dir)) {
      text += fmt::format("export {}={}\n", key, ShellQuote(value));
    }
    return WriteStdout(text) ? kExitOk : kExitInternal;
  }
  if (args.command.empty()) {
    PrintError(Error{.where = where,
                     .message = "give the pipeline's command after --, e.g. cookgraph record -- "
                                "gst-launch-1.0 videotestsrc num-buffers=60 ! videoconvert ! "
                                "fakesink"});
    return kExitInput;
  }
  const fs::path dir = fs::absolute(args.dir);
  std::error_code ec;
  bool made = false;
  std::vector<fs::path> before;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      PrintError(Error{.file = args.dir, .message = "is not a folder: give -o a new folder"});
      return kExitInput;
    }
    for (const auto& entry : fs::directory_iterator(dir, ec)) before.push_back(entry.path());
    if (!before.empty()) {
      PrintError(Error{.file = args.dir,
                       .message = "is not empty: record into a new or empty folder, so that "
                                  "the dump and the log are this run's"});
      return kExitInput;
    }
  } else {
    fs::create_directories(dir, ec);
    if (ec) {
      PrintError(Error{.file = args.dir, .message = "cannot be made: " + ec.message()});
      return kExitInput;
    }
    made = true;
  }

  const Spawned run = Run(args.command, RecordingEnv(dir.string()));
  if (run.error != 0) {
    CleanUp(dir, made, before);
    const std::string hint = run.error == ENOENT && args.command[0].find("gst-") == 0
                                 ? " (Debian: apt install gstreamer1.0-tools)"
                                 : "";
    PrintError(Error{.where = where,
                     .message = fmt::format("cannot run {}: {}{}", args.command[0],
                                            std::strerror(run.error), hint)});
    return kExitInput;
  }
  if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
    CleanUp(dir, made, before);
    const std::string how = WIFEXITED(run.status)
                                ? fmt::format("exit code {}", WEXITSTATUS(run.status))
                                : fmt::format("signal {}", WTERMSIG(run.status));
    PrintError(Error{.where = where,
                     .message = fmt::format("the pipeline failed ({}), nothing was recorded: {}",
                                            how, CommandText(args.command))});
    return kExitInput;
  }

  // Keep the dump and the log `score` would read (FindGstreamerInputs: the
  // PAUSED_PLAYING dump, the latest when the pipeline went to PLAYING several
  // times), and only them.
  Result<GstreamerInputs> found = FindGstreamerInputs({dir.string()});
  std::string missing;
  if (!found || fs::path(found->dot).filename().string().find(".PAUSED_PLAYING.") ==
                    std::string::npos) {
    missing = "no PAUSED_PLAYING dump: the pipeline never reached PLAYING, or the program does "
              "not dump its graph (gst-launch-1.0 does; an application calls "
              "GST_DEBUG_BIN_TO_DOT_FILE)";
  } else if (found->log.empty()) {
    missing = "no tracer log: the program did not load GStreamer's tracers";
  }
  if (!missing.empty()) {
    CleanUp(dir, made, before);
    PrintError(Error{.file = args.dir, .where = where, .message = missing});
    return kExitInput;
  }
  const fs::path playing = found->dot;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".dot" && entry.path().filename() != playing.filename()) {
      fs::remove(entry.path(), ec);
    }
  }
  std::fprintf(stderr, "cookgraph: recorded %s: %s and %s\n", args.dir.c_str(),
               playing.filename().c_str(), fs::path(found->log).filename().c_str());
  return ScoreRecording(args.dir);
}

}  // namespace

std::function<int()> SetupRecord(CLI::App& sub) {
  auto args = std::make_shared<RecordArgs>();
  sub.add_option("-o,--output", args->dir,
                 "the folder for the recording: new or empty (default: cookgraph-recording)");
  sub.add_flag("--env", args->env,
               "print the environment variables instead (shell `export` lines), for a pipeline "
               "started from your own application");
  sub.add_option("COMMAND", args->command,
                 "after --: the program and its arguments, e.g. gst-launch-1.0 PIPELINE...");
  sub.footer(
      "Runs COMMAND with GST_TRACERS=\"latency(flags=element+pipeline);rusage\",\n"
      "GST_DEBUG=\"GST_TRACER:7\", GST_DEBUG_FILE=DIR/trace.log and\n"
      "GST_DEBUG_DUMP_DOT_DIR=DIR, keeps the PAUSED_PLAYING dump and the log, and prints\n"
      "`cookgraph score DIR`. Examples:\n"
      "  cookgraph record -o rec -- gst-launch-1.0 videotestsrc num-buffers=120 ! theoraenc ! "
      "fakesink\n"
      "  cookgraph score rec --format json\n"
      "  eval \"$(cookgraph record --env -o rec)\"; ./my-gstreamer-app");
  return [args] { return RunRecord(*args); };
}

}  // namespace cookgraph::cli
