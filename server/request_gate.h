#ifndef COOKGRAPH_SERVER_REQUEST_GATE_H_
#define COOKGRAPH_SERVER_REQUEST_GATE_H_

// cpp-httplib's server with a gate in front (docs/commands.md#the-explorers-safety):
// one thread reads every connection's request head and body without blocking,
// within size limits and deadlines, and only a complete request reaches a
// worker thread and cpp-httplib's routing. A slow or stalled client holds a
// socket and a few kilobytes, never a worker.

#include <chrono>
#include <cstddef>
#include <memory>

#include <httplib.h>

namespace cookgraph::server {

struct GateLimits {
  size_t max_head_bytes = 64 << 10;  // request line and headers, with their line ends
  size_t max_head_lines = 100;  // header lines
  size_t max_body_bytes = 4 << 20;
  /// Body bytes being read across all connections at once.
  size_t max_buffered_body_bytes = 64 << 20;
  /// From a request's first byte to its blank line, and to its body's last byte.
  std::chrono::milliseconds head_timeout{10'000};
  std::chrono::milliseconds body_timeout{30'000};
  /// A kept-alive connection waiting for its next request.
  std::chrono::milliseconds idle_timeout{30'000};
  /// The most a response may wait, in all, for a client to read it (a page
  /// that stopped reading, or reads a few bytes at a time).
  std::chrono::milliseconds stall_timeout{10'000};
  /// What a worker leaves for the reading thread to send when the client
  /// reads slowly: per connection and in all. Past them, the worker waits.
  size_t max_unsent_bytes = 1 << 20;
  size_t max_unsent_total_bytes = 64 << 20;
  /// How long the reading thread sends that to a slow client.
  std::chrono::milliseconds flush_timeout{30'000};
  /// Open connections (held by the gate, queued, served or being sent to;
  /// at most the open-file limit less 64); a new one past it closes the one
  /// that has waited longest for a complete request, or is refused (503).
  size_t max_connections = 512;
  size_t workers = 12;
  size_t requests_per_connection = 100;
};

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
