#ifndef COOKGRAPH_SERVER_ASSETS_H_
#define COOKGRAPH_SERVER_ASSETS_H_

// The explorer's page, script, styles and vendored libraries, built into the
// binary from server/assets/ (server/embed_assets.cmake writes their bytes
// into a generated source file), so that `cookgraph serve` needs no files and
// no network at run time.

#include <string_view>

namespace cookgraph::server {

struct Asset {
  std::string_view name;  // file name under server/assets/ ("app.js", "vendor-markdown-it.min.js")
  std::string_view type;  // the Content-Type it is served with
  std::string_view body;
};

/// The asset with exactly this name, or nullptr. Names are looked up, never
/// used as paths.
const Asset* FindAsset(std::string_view name);

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_ASSETS_H_
