#ifndef COOKGRAPH_SERVER_REQUEST_GATE_H_
#define COOKGRAPH_SERVER_REQUEST_GATE_H_

// cpp-httplib's server with a gate in front (docs/commands.md#the-explorers-safety):
// one thread reads every connection's request head and body without blocking,
// within size limits and deadlines, and only a complete request reaches a
// worker thread and cpp-httplib's routing. A slow or stalled client holds a
// socket and a few kilobytes, never a worker.

#include <httplib.h>

#include <memory>

#include "server/gate_limits.h"

namespace cookgraph::server {

class GatedServer : public httplib::Server {
 public:
  explicit GatedServer(GateLimits limits);
  ~GatedServer() override;

  struct Gate;

 private:
  // Called by cpp-httplib's accept loop for each new connection: hands it to
  // the gate's reading thread and returns.
  bool process_and_close_socket(socket_t sock) override;
  // A worker: cpp-httplib's request processing over a complete request.
  bool Serve(httplib::Stream& stream, bool last);

  GateLimits limits_;
  std::shared_ptr<Gate> gate_;  // while listening
};

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_REQUEST_GATE_H_
