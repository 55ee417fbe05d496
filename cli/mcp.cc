// `cookgraph mcp [INPUT...]` (docs/mcp.md): a Model Context Protocol server
// over standard input and output for the assistant that starts it.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "base/text.h"
#include "cli/command.h"
#include "cli/input.h"
#include "mcp/server.h"
#include "mcp/stdio.h"

namespace cookgraph::cli {
namespace {

struct McpArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> allow;
  InputArgs input;  // the format options and the budget, for every input
  std::string pack;
};

int RunMcp(const McpArgs& args) {
  mcp::Options options{.read = args.input.options(),
                       .budget_ms = args.input.budget_ms,
                       .pack = args.pack,
                       .version = COOKGRAPH_VERSION};
  for (const std::string& dir : args.allow) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, ec);
    if (ec || !std::filesystem::is_directory(canonical, ec)) {
      PrintError(Error{.file = dir, .message = "--allow: no such folder"});
      return kExitInput;
    }
    options.allowed.push_back(canonical);
  }
  mcp::Server server(std::move(options));
  for (const std::string& path : args.inputs) {
    Result<std::string> id = server.OpenInput(path);
    if (!id) {
      PrintError(id.error());
      return kExitInput;
    }
    std::fprintf(stderr, "cookgraph mcp: %s is input '%s'\n", Printable(path).c_str(), id->c_str());
  }
  std::fprintf(stderr, "cookgraph mcp: serving over standard input and output (MCP %s)\n",
               std::string(mcp::kProtocolVersions[0]).c_str());
  std::signal(SIGPIPE, SIG_IGN);  // a client that leaves ends the loop, not the process
  if (!mcp::ServeLines(server, 0, 1)) {
    PrintError(Error{.file = "-", .message = "standard input could not be read"});
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupMcp(CLI::App& sub) {
  auto args = std::make_shared<McpArgs>();
  sub.add_option("INPUT", args->inputs,
                 "inputs to open at the start (a snapshot, a trace, a GStreamer recording's "
                 "folder); the assistant opens others with the tool `open`");
  sub.add_option("--allow", args->allow,
                 "a folder the tool `open` may read beneath (repeatable; default: the current "
                 "folder)");
  AddFormatOptions(sub, args->input);
  AddBudgetOption(sub, args->input.budget_ms);
  sub.add_option("--pack", args->pack,
                 "a knowledge pack (YAML) of your own instead of the engine's built-in one");
  sub.footer(
      "Example, in an assistant's MCP configuration (docs/mcp.md):\n"
      "  \"cookgraph\": {\"command\": \"cookgraph\", \"args\": [\"mcp\", \"patch.json\"]}");
  return [args] { return RunMcp(*args); };
}

}  // namespace cookgraph::cli
