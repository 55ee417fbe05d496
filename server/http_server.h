#ifndef COOKGRAPH_SERVER_HTTP_SERVER_H_
#define COOKGRAPH_SERVER_HTTP_SERVER_H_

// The explorer's HTTP server (docs/commands.md#cookgraph-serve): the page and its
// assets built into the binary, the JSON API over an Explorer, the ask box's
// server-sent events and the live view's change stream. cpp-httplib's
// routing behind a request gate (server/request_gate.h).
//
// Safety (docs/commands.md#the-explorers-safety): it listens on 127.0.0.1 unless told
// otherwise; on any other address every request needs the access token;
// requests whose Host is not the server's own name, or whose Origin is not its
// own address, are refused (DNS rebinding, cross-site requests); only fixed
// routes exist (no file system paths); request bodies and the number of open
// streams are bounded.

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "base/error.h"
#include "server/explorer.h"
#include "server/request_gate.h"

namespace cookgraph::server {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8765;  // 0 = any free port
  /// Required on every request when set (`serve` sets one unless
  /// --no-token): as ?token= (the page's first load, which sets a cookie),
  /// the cookie, or "Authorization: Bearer TOKEN". "" = none (loopback only).
  std::string token;
  size_t max_streams = 4;  // open ask and live streams at once
  /// A POST body: the question and the thread before it (50 turns of a
  /// 4,000-byte question and a 64 KiB answer, with room for JSON's escapes).
  size_t max_body_bytes = 4 << 20;
  size_t max_question_chars = 4000;  // bytes of a question, also of an earlier one
  size_t max_history_turns = 50;     // earlier turns sent with a question
  size_t max_answer_bytes = 64 << 10;  // bytes of an earlier answer
  /// The request gate's limits and deadlines (its body limit and workers
  /// come from the above).
  GateLimits gate;
};

/// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopback(const std::string& host);

/// A random token of 32 hex digits (from the system's random device).
std::string RandomToken();

class ExplorerServer {
 public:
  ExplorerServer(Explorer& explorer, ServeOptions options);
  ~ExplorerServer();
  ExplorerServer(const ExplorerServer&) = delete;
  ExplorerServer& operator=(const ExplorerServer&) = delete;

  /// Binds and starts serving on a background thread. An Error names the
  /// address when it cannot be bound.
  Status Start();
  /// The bound port (after Start).
  int port() const { return port_; }
  /// The address to open: http://HOST:PORT/ (with ?token= when one is needed).
  std::string Url() const;
  /// Stops serving and joins the thread; open streams end.
  void Stop();
  /// Blocks until Stop() (from another thread or a signal handler's flag).
  void Wait();
  bool running() const;

  struct Impl;

 private:
  Explorer& explorer_;
  ServeOptions options_;
  int port_ = 0;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
};

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_HTTP_SERVER_H_
