#ifndef COOKGRAPH_SERVER_GATE_LIMITS_H_
#define COOKGRAPH_SERVER_GATE_LIMITS_H_

// The request gate's limits and deadlines (server/request_gate.h,
// docs/commands.md#the-explorers-safety), apart from cpp-httplib: the serve
// options hold them, and the binary that sets them does not link cpp-httplib
// (server/http_server.h).

#include <chrono>
#include <cstddef>

namespace cookgraph::server {

struct GateLimits {
  size_t max_head_bytes = 64 << 10;  // request line and headers, with their line ends
  size_t max_head_lines = 100;       // header lines
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

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_GATE_LIMITS_H_
