#include "mcp/messages.h"

#include <algorithm>

#include "base/text.h"

namespace cookgraph::mcp {

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string Echo(std::string_view s) {
  std::string out(s.substr(0, std::min(s.size(), kEchoBytes)));
  if (s.size() > kEchoBytes) out += "...";
  return "'" + Printable(out) + "'";
}

// Replies are written by JsonWriter in nlohmann's spelling (they were dumps of
// nlohmann values); what the client sent (its id) and what is parsed (the
// tools' schemas and results) are dumped by nlohmann and placed as they are.
JsonWriter Writer() { return JsonWriter(JsonStyle::kNlohmann); }

/// A reply: {"jsonrpc":"2.0","id":ID,MEMBER:VALUE}, VALUE written already.
std::string ReplyLine(const Json& id, std::string_view member, std::string_view value) {
  JsonWriter w = Writer();
  w.BeginObject();
  w.StringField("jsonrpc", "2.0");
  w.Key("id");
  w.Raw(Dump(id));
  w.Key(member);
  w.Raw(value);
  w.EndObject();
  return w.Take();
}

/// JSON-RPC's error object, with {"uri": URI} as its data when `uri` is given.
std::string ErrorObject(int code, const std::string& message, const std::string* uri) {
  JsonWriter w = Writer();
  w.BeginObject();
  w.IntField("code", code);
  w.StringField("message", message);
  if (uri != nullptr) {
    w.Key("data");
    w.BeginObject();
    w.StringField("uri", *uri);
    w.EndObject();
  }
  w.EndObject();
  return w.Take();
}

std::string ErrorLine(const Json& id, int code, const std::string& message) {
  return ReplyLine(id, "error", ErrorObject(code, message));
}

std::string ResultLine(const Json& id, std::string_view result) {
  return ReplyLine(id, "result", result);
}

/// {"content":[{"type":"text","text":TEXT}], ...: a tool's result or a
/// prompt's message, left open for the caller's members.
void TextContent(JsonWriter& w, std::string_view key, const std::string& text) {
  w.Key(key);
  w.BeginArray();
  w.BeginObject();
  w.StringField("type", "text");
  w.StringField("text", text);
  w.EndObject();
  w.EndArray();
}

/// {"KEY":[...]} of `items`, each written already.
std::string ListObject(std::string_view key, const std::vector<std::string>& items) {
  JsonWriter w = Writer();
  w.BeginObject();
  w.Key(key);
  w.BeginArray();
  for (const std::string& item : items) w.Raw(item);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace cookgraph::mcp
