#ifndef COOKGRAPH_SERVER_HTTP_BACKEND_H_
#define COOKGRAPH_SERVER_HTTP_BACKEND_H_

// The explorer's HTTP server proper, in the module libcookgraph_http.so
// (server/http_module.cc): cpp-httplib, and the OpenSSL and Brotli libraries
// it is linked with, are loaded by the command that serves, not by every
// command (docs/performance.md#start-up). The module holds its own copy of
// the code it runs; ExplorerServer (server/http_server.h) opens it and
// calls it through this interface alone, whose virtual calls bind to no
// symbol of either side.

#include "base/error.h"
#include "server/explorer.h"
#include "server/http_server.h"

namespace cookgraph::server {

class HttpBackend {
 public:
  virtual ~HttpBackend() = default;
  /// ExplorerServer's, as documented there.
  virtual Status Start() = 0;
  virtual int port() const = 0;
  virtual void Stop() = 0;
  virtual void Wait() = 0;
  virtual bool running() const = 0;
};

/// The module's file name, looked for beside the executable and in
/// ../lib/cookgraph from it (where the build tree and `cmake --install`
/// put it).
inline constexpr char kHttpModule[] = "libcookgraph_http.so";
/// Its one entry: a new backend serving `explorer` (which outlives it),
/// or null when out of memory.
inline constexpr char kHttpModuleEntry[] = "cookgraph_http_backend";
using HttpBackendEntry = HttpBackend* (*)(Explorer& explorer, const ServeOptions& options);

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_HTTP_BACKEND_H_
