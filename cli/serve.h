#ifndef COOKGRAPH_CLI_SERVE_H_
#define COOKGRAPH_CLI_SERVE_H_

// What `serve` and `watch --serve` share: a snapshot made into an explorer
// view (analysed, judged by its knowledge pack), the ask box's hooks over the
// advisor's settings, and the server's options (docs/commands.md#cookgraph-serve).

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "advisor/settings.h"
#include "model/snapshot.h"
#include "server/explorer.h"
#include "server/http_server.h"

namespace cookgraph::cli {

/// --port and --listen of `serve` (and `watch --serve`'s).
struct ServeFlags {
  int port = 8765;
  std::string listen = "127.0.0.1";
  bool allow_remote = false;  // --allow-remote: required for a non-loopback --listen
  bool no_token = false;      // --no-token: no access token (loopback only)
  bool open = false;
  std::string listen_flag = "--listen";  // how errors name the address's flag
};

/// Adds --port, --listen, --allow-remote, --no-token and --open.
void AddServeOptions(CLI::App& sub, ServeFlags& flags);

/// The options of the explorer's analysis: with the gains, for the node
/// table's gain column (docs/commands.md#what-the-page-shows) and the ask
/// box's prompt, as `ask`'s.
AnalysisOptions ExplorerAnalysis(std::optional<double> budget_ms);

/// The ask box over `settings` (copied): server/ask_hooks.h's conversation
/// (the page's thread as earlier turns, the functions offered, the streamed
/// answer; docs/architecture.md#conversations), or, without an endpoint, how
/// to configure one.
server::AskHooks MakeAskHooks(const AdvisorSettings& settings);

/// The server's options from the flags: a random access token unless
/// --no-token (on loopback only); a non-loopback address without
/// --allow-remote is an error.
Result<server::ServeOptions> MakeServeOptions(const ServeFlags& flags);

/// Prints the address on standard output ("cookgraph: explorer at URL") and,
/// with --open, asks the desktop to open it.
// Opens the explorer's HTTP server module (server/http_backend.h) before
// `serve` or `watch --serve` reads anything: false, with its one line
// printed, when it cannot be (a broken install: exit 1, as for a library
// opened on use).
bool ServerModuleLoads();
void AnnounceServer(const server::ExplorerServer& server, bool open);

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_SERVE_H_
