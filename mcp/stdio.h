#ifndef COOKGRAPH_MCP_STDIO_H_
#define COOKGRAPH_MCP_STDIO_H_

// MCP's stdio transport (docs/mcp.md): one JSON-RPC message a line in, each
// answer a line out.

#include <cstddef>

#include "mcp/server.h"

namespace cookgraph::mcp {

/// The longest message read; a longer line is answered with an error and
/// skipped without being held in memory.
inline constexpr size_t kMaxLineBytes = size_t{4} << 20;

/// Answers the lines of `in` until its end (or until `out` can no longer be
/// written: the client left). Returns false on a read error.
bool ServeLines(Server& server, int in, int out, size_t max_line = kMaxLineBytes);

}  // namespace cookgraph::mcp

#endif  // COOKGRAPH_MCP_STDIO_H_
