#ifndef COOKGRAPH_MCP_MESSAGES_H_
#define COOKGRAPH_MCP_MESSAGES_H_

// Internal to mcp/: the JSON-RPC messages the server writes (docs/mcp.md):
// replies, errors and the pieces of results, in nlohmann's spelling through
// base/json_writer.h (they were dumps of nlohmann values).

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "base/json_writer.h"

namespace cookgraph::mcp {

using Json = nlohmann::ordered_json;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kResourceNotFound = -32002;  // MCP's own
constexpr size_t kMaxDepth = 64;           // of a message's brackets
constexpr size_t kEchoBytes = 80;          // of a name repeated in a message

/// `j` as nlohmann writes it, invalid UTF-8 replaced.
std::string Dump(const Json& j);
/// `s` quoted for a message, printable, cut after 80 bytes.
std::string Echo(std::string_view s);
/// A writer in nlohmann's spelling.
JsonWriter Writer();
/// A reply: {"jsonrpc":"2.0","id":ID,MEMBER:VALUE}, VALUE written already.
std::string ReplyLine(const Json& id, std::string_view member, std::string_view value);
/// JSON-RPC's error object, with {"uri": URI} as its data when `uri` is given.
std::string ErrorObject(int code, const std::string& message, const std::string* uri = nullptr);
std::string ErrorLine(const Json& id, int code, const std::string& message);
std::string ResultLine(const Json& id, std::string_view result);
/// {"content":[{"type":"text","text":TEXT}], ...: a tool's result or a
/// prompt's message, left open for the caller's members.
void TextContent(JsonWriter& w, std::string_view key, const std::string& text);
/// {"KEY":[...]} of `items`, each written already.
std::string ListObject(std::string_view key, const std::vector<std::string>& items);

}  // namespace cookgraph::mcp

#endif  // COOKGRAPH_MCP_MESSAGES_H_
