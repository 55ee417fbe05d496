#ifndef COOKGRAPH_SERVER_HTTP_SERVER_H_
#define COOKGRAPH_SERVER_HTTP_SERVER_H_

// The explorer's HTTP server (docs/commands.md#cookgraph-serve): the page and its
// assets built into the module, the JSON API over an Explorer, the ask box's
// server-sent events and the live view's change stream. cpp-httplib's
// routing behind a request gate (server/request_gate.h), in a module of its
// own that the first ExplorerServer opens (server/http_backend.h): cpp-httplib
// brings OpenSSL, whose loading every other command would pay for
// (docs/performance.md#start-up).
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
#include <string_view>

#include "base/error.h"
#include "server/explorer.h"
#include "server/gate_limits.h"

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

/// True for an IP address written as a URL host: digits and dots (IPv4) or
/// in brackets (IPv6). A DNS rebinding attack needs a name: an address
/// cannot be rebound.
bool IsAddressLiteral(std::string_view host);

/// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopback(const std::string& host);

/// A random token of 32 hex digits (from the system's random device).
std::string RandomToken();

class HttpBackend;

class ExplorerServer {
 public:
  ExplorerServer(Explorer& explorer, ServeOptions options);
  ~ExplorerServer();
  ExplorerServer(const ExplorerServer&) = delete;
  ExplorerServer& operator=(const ExplorerServer&) = delete;

  /// Opens the module that holds the HTTP server (server/http_backend.h),
  /// once per process: an Error says why it cannot be, in one line (an
  /// installation's fault, not the user's input). Start() opens it too.
  static Status Load();
  /// Binds and starts serving on a background thread. An Error names the
  /// address when it cannot be bound, or the module when it cannot be
  /// loaded.
  Status Start();
  /// The bound port (after Start).
  int port() const;
  /// The address to open: http://HOST:PORT/ (with ?token= when one is needed).
  std::string Url() const;
  /// Stops serving and joins the thread; open streams end.
  void Stop();
  /// Blocks until Stop() (from another thread or a signal handler's flag).
  void Wait();
  bool running() const;

 private:
  Explorer& explorer_;
  ServeOptions options_;
  std::unique_ptr<HttpBackend> backend_;  // from Start() on
};

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_HTTP_SERVER_H_
