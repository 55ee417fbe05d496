// `cookgraph serve INPUT... [--port N] [--open]`: the local web explorer
// (docs/commands.md#cookgraph-serve). One input is one view; two files are BEFORE and
// AFTER with their comparison; a folder is one view per input it holds, with
// a summary row each. Everything is read and analysed before the server
// starts; Ctrl-C stops it.

#include "cli/serve.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "adapters/input_files.h"
#include "pipeline/pipeline.h"
#include "base/text.h"
#include "cli/command.h"
#include "cli/input.h"
#include "cli/llm.h"
#include "metrics/diff.h"
#include "server/ask_hooks.h"

extern char** environ;

namespace cookgraph::cli {

AnalysisOptions ExplorerAnalysis(std::optional<double> budget_ms) {
  return AnalysisOptions{.budget_ms = budget_ms, .gains = true};
}

server::AskHooks MakeAskHooks(const AdvisorSettings& settings) {
  // Each question is a turn of a conversation, asked as `ask --chat` asks
  // (server/ask_hooks.h); the key stays in this process.
  server::AskHooks hooks = server::EndpointAskHooks(settings);
  if (settings.endpoint.base_url.empty() || settings.model.empty()) {
    hooks.not_configured =
        "No LLM endpoint is configured. Set COOKGRAPH_BASE_URL (or OPENAI_BASE_URL), "
        "COOKGRAPH_MODEL and OPENAI_API_KEY, or llm: {base_url, model} in ./cookgraph.yaml, and "
        "start cookgraph serve again. The findings are the offline advice.";
    hooks.ask = nullptr;
  }
  return hooks;
}

Result<server::ServeOptions> MakeServeOptions(const ServeFlags& flags) {
  server::ServeOptions o;
  o.host = flags.listen;
  o.port = flags.port;
  if (!server::IsLoopback(flags.listen)) {
    if (!flags.allow_remote) {
      return Error{.where = flags.listen_flag,
                   .message = flags.listen +
                              " is not a loopback address: anyone who can reach it could read "
                              "your inputs; add --allow-remote to serve it (an access token is "
                              "then required)"};
    }
    if (flags.no_token) {
      return Error{.where = "--no-token",
                   .message = "only on a loopback address: " + flags.listen +
                              " can be reached from other machines, so it keeps its access token"};
    }
  }
  // A token on loopback too, as Jupyter's servers do: any local user could
  // otherwise read the inputs and spend the owner's API key
  // (docs/commands.md#the-explorers-safety).
  if (!flags.no_token) o.token = server::RandomToken();
  return o;
}

bool ServerModuleLoads() {
  const Status loaded = server::ExplorerServer::Load();
  if (!loaded) PrintError(loaded.error());
  return static_cast<bool>(loaded);
}

void AnnounceServer(const server::ExplorerServer& server, bool open) {
  const std::string url = server.Url();
  std::printf("cookgraph: explorer at %s (Ctrl-C stops)\n", url.c_str());
  std::fflush(stdout);
  if (!open) return;
  // The desktop's opener, without a shell; its failure is only a warning.
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    PrintWarning("", "--open: cannot run xdg-open; open " + url + " in a browser");
  }
}

namespace {

std::atomic<int> g_serve_signal{0};
extern "C" void OnServeSignal(int signal_number) { g_serve_signal.store(signal_number); }

void CatchServeSignals() {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction action = {};
    sigaction(sig, nullptr, &action);
    if (action.sa_handler == SIG_IGN) continue;
    action.sa_handler = OnServeSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(sig, &action, nullptr);
  }
  // A page that leaves mid-stream must not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
}

struct ServeArgs {
  std::vector<std::string> inputs;
  InputArgs input;  // the format options (paths unused)
  ServeFlags flags;
  LlmFlags llm;
};

int RunServe(const ServeArgs& args) {
  Result<AdvisorSettings> settings = ResolveSettings(args.llm);
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  Result<server::ServeOptions> options = MakeServeOptions(args.flags);
  if (!options) {
    PrintError(options.error());
    return kExitInput;
  }
  if (!ServerModuleLoads()) return kExitInternal;
  const InputList list = ExpandInputs(args.inputs);
  for (const Error& w : list.warnings) PrintWarning(w.file, w.message);
  for (const Error& e : list.errors) PrintError(e);
  if (!list.errors.empty()) return kExitInput;
  // Two files given as two arguments are BEFORE and AFTER.
  const bool compare = args.inputs.size() == 2 && list.inputs.size() == 2;
  std::vector<Input> inputs = list.inputs;
  if (compare) {  // in the order given, not sorted
    if (inputs[0].paths != std::vector<std::string>{args.inputs[0]})
      std::swap(inputs[0], inputs[1]);
  }

  server::Dataset data;
  ReadOptions read = args.input.options();
  for (const Input& in : inputs) {
    Judged judged;
    const pipeline::Outcome outcome = pipeline::ReadAndJudge(
        in, read, ExplorerAnalysis(args.input.budget_ms), settings->pack, judged);
    for (const std::string& w : judged.snapshot.warnings) PrintWarning(in.name(), w);
    if (!outcome) {
      PrintError(outcome.failure().error);
      return outcome.failure().internal ? kExitInternal : kExitInput;
    }
    data.views.push_back(server::MakeView(in.name(), std::move(judged)));
  }
  if (compare) {
    const server::View& before = *data.views[0];
    const server::View& after = *data.views[1];
    data.diff = CompareSnapshots(before.snapshot, before.analysis, after.snapshot, after.analysis);
  }
  const size_t views = data.views.size();
  server::Explorer explorer(std::move(data), MakeAskHooks(*settings));
  server::ExplorerServer server(explorer, *options);
  g_serve_signal.store(0);
  CatchServeSignals();
  if (Status started = server.Start(); !started) {
    PrintError(started.error());
    return kExitInput;
  }
  std::fprintf(stderr, "cookgraph: serving %zu view%s%s\n", views, views == 1 ? "" : "s",
               compare ? " (BEFORE, AFTER and their comparison)" : "");
  AnnounceServer(server, args.flags.open);
  while (g_serve_signal.load() == 0 && server.running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  server.Stop();
  std::fprintf(stderr, "cookgraph: stopped\n");
  return kExitOk;
}

}  // namespace

void AddServeOptions(CLI::App& sub, ServeFlags& flags) {
  sub.add_option("--port", flags.port, "the port to listen on (default 8765; 0 = any free port)")
      ->check(CLI::Range(0, 65535));
  sub.add_option("--listen", flags.listen,
                 "the address to listen on (default 127.0.0.1; any other needs --allow-remote)");
  sub.add_flag("--allow-remote", flags.allow_remote,
               "serve on a non-loopback --listen address (the access token is always required there)");
  sub.add_flag("--no-token", flags.no_token,
               "no access token on a loopback address (any local user can then use the explorer)");
  sub.add_flag("--open", flags.open, "open the explorer in the desktop's browser");
}

std::function<int()> SetupServe(CLI::App& sub) {
  auto args = std::make_shared<ServeArgs>();
  sub.add_option("INPUT", args->inputs,
                 "inputs to explore: one (a snapshot, a trace, a GStreamer recording), two "
                 "files (BEFORE AFTER: their comparison), or a folder (one view per input)")
      ->required();
  AddFormatOptions(sub, args->input);
  AddBudgetOption(sub, args->input.budget_ms);
  AddServeOptions(sub, args->flags);
  AddLlmOptions(sub, args->llm);
  return [args] { return RunServe(*args); };
}

}  // namespace cookgraph::cli
