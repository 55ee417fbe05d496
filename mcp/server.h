#ifndef COOKGRAPH_MCP_SERVER_H_
#define COOKGRAPH_MCP_SERVER_H_

// `cookgraph mcp` (docs/mcp.md): a Model Context Protocol server over the
// tools `ask` gives the model (advisor/tools.h), one JSON-RPC 2.0 message a
// line. This class answers one message at a time; mcp/stdio.h reads them.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/input_reader.h"
#include "advisor/tokens/token_counter.h"
#include "base/error.h"

namespace cookgraph::mcp {

struct Options {
  /// The folders `open` may read beneath (canonical); empty = the current folder.
  std::vector<std::filesystem::path> allowed;
  ReadOptions read;
  std::optional<double> budget_ms;  // --budget-ms, for every input
  std::string pack;                 // --pack: a knowledge pack of the user's ("" = built-in)
  std::string version;              // serverInfo.version
  /// The most tokens (by the estimator) a tool's result may take: lists are
  /// cut to fit and say so; anything else over it is an error.
  size_t max_result_tokens = 25000;
};

/// The protocol revisions answered, newest first: the one
/// @modelcontextprotocol/sdk 1.32 asks for and the older ones it accepts.
inline constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                         "2024-11-05", "2024-10-07"};

class Server {
 public:
  explicit Server(Options options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Opens `path` (as `open` does, but from the command line: any folder) and
  /// gives its id, or the reader's Error.
  Result<std::string> OpenInput(const std::string& path);

  /// The lines to write for one message (a response, and the notifications it
  /// causes); none for a notification. Never throws.
  std::vector<std::string> Handle(std::string_view line);

  /// The error response to a line over the length limit (`bytes` of it read).
  static std::string LineTooLong(size_t bytes, size_t limit);

 private:
  struct Input;
  class Call;

  Result<std::string> Open(const std::string& path, bool checked);
  const Input* Find(std::string_view id) const;

  Options options_;
  std::unique_ptr<TokenCounter> counter_;
  std::vector<std::unique_ptr<Input>> inputs_;
};

}  // namespace cookgraph::mcp

#endif  // COOKGRAPH_MCP_SERVER_H_
