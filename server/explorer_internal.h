#ifndef COOKGRAPH_SERVER_EXPLORER_INTERNAL_H_
#define COOKGRAPH_SERVER_EXPLORER_INTERNAL_H_

// Not a public header: what the explorer's documents share. One file per
// resource of docs/commands.md#the-explorers-api: explorer.cc (the dataset:
// index, diff, the routes of a view), explorer_view.cc (preparing a view),
// explorer_summary.cc (summary, frames, findings), explorer_graph.cc (the
// network of a container and its layout), explorer_nodes.cc (node, search,
// nodes), explorer_timeline.cc and explorer_whatif.cc.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/json_writer.h"
#include "server/explorer.h"

namespace cookgraph::server {

inline Error NotFound(std::string message) {
  return Error{.where = kNotFound, .message = std::move(message)};
}

// A view with the dataset that holds it (kept alive while a request reads it).
struct ViewRef {
  std::shared_ptr<const Dataset> data;
  const View* view = nullptr;
};

inline Result<ViewRef> ViewOf(std::shared_ptr<const Dataset> d, size_t index) {
  if (index >= d->views.size()) return NotFound("no view " + std::to_string(index));
  const View* view = d->views[index].get();
  return ViewRef{std::move(d), view};
}

// The last part of a '/'-separated id ("/project1/noise1" -> "noise1"); the
// whole id when that part would be empty.
inline std::string_view ShortName(std::string_view id) {
  const size_t slash = id.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == id.size()) return id;
  return id.substr(slash + 1);
}

// The documents keep the bytes they had when nlohmann::json built them: its
// spelling (JsonStyle::kNlohmann) and its keys in sorted order
// (docs/architecture.md#writing-json). NaN and infinities are null; bytes
// that are not UTF-8 (a file name, a name from an input) become U+FFFD.
inline constexpr JsonStyle kExplorerStyle = JsonStyle::kNlohmann;

// {"error": message}.
inline std::string ErrorDocument(std::string_view message) {
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.StringField("error", message);
  w.EndObject();
  return w.Take();
}

inline void WriteStrings(JsonWriter& w, const std::vector<std::string>& list) {
  w.BeginArray();
  for (const std::string& s : list) w.String(s);
  w.EndArray();
}

// Index of each container by id.
inline std::unordered_map<std::string_view, size_t> ContainerIndex(const View& v) {
  std::unordered_map<std::string_view, size_t> index;
  index.reserve(v.containers.size());
  for (size_t i = 0; i < v.containers.size(); ++i) index.emplace(v.containers[i].id, i);
  return index;
}

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_EXPLORER_INTERNAL_H_
