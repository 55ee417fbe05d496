// The explorer's HTTP server (server/http_server.h), built as the module
// libcookgraph_http.so with its own copy of the code it runs
// (server/http_backend.h): the page, the JSON API, the ask box's and the live
// view's streams, behind the request gate.

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>

#include "base/text.h"
#include "server/ask_prompt.h"
#include "server/assets.h"
#include "server/http_backend.h"
#include "server/request_gate.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;

// What every response carries: the page may load only its own scripts and
// styles and talk only to this server (docs/commands.md#the-explorers-safety).
const httplib::Headers kSecurityHeaders = {
    {"Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "no-referrer"},
    {"X-Frame-Options", "DENY"},
    {"Cross-Origin-Resource-Policy", "same-origin"},
};

// Compares without stopping at the first difference (the token).
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

void SendJson(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, "application/json; charset=utf-8");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  SendJson(res, status, json{{"error", message}}.dump());
}

void Send(httplib::Response& res, const Result<std::string>& doc) {
  if (doc) {
    SendJson(res, 200, *doc);
  } else {
    SendError(res, doc.error().where == kNotFound ? 404 : 400, doc.error().message);
  }
}

// Why a request's query cannot be read, or "": a parameter given twice (of
// two, which was meant is a guess) or a value that is not UTF-8 (after
// percent-decoding).
std::string QueryProblem(const httplib::Request& req) {
  for (auto it = req.params.begin(); it != req.params.end();
       it = req.params.upper_bound(it->first)) {
    if (const size_t n = req.params.count(it->first); n > 1) {
      return fmt::format("{}: given {} times; give it once", Printable(it->first), n);
    }
  }
  for (const auto& [key, value] : req.params) {
    if (FirstInvalidUtf8(key) != std::string::npos ||
        FirstInvalidUtf8(value) != std::string::npos) {
      return fmt::format("{}: not UTF-8 text", Printable(key));
    }
  }
  return "";
}

// Whether a request's body is declared JSON: the media type exactly
// (parameters such as charset allowed).
bool IsJsonBody(const httplib::Request& req) {
  const std::string type = AsciiLower(req.get_header_value("Content-Type"));
  return TrimSpace(std::string_view(type).substr(0, type.find(';'))) == "application/json";
}

std::string SseEvent(std::string_view event, const json& data) {
  // Bytes that are not UTF-8 (a model's arguments) become U+FFFD, never an exception.
  return fmt::format("event: {}\ndata: {}\n\n", event,
                     data.dump(-1, ' ', false, json::error_handler_t::replace));
}

AskBounds BoundsOf(const ServeOptions& o) {
  return AskBounds{.max_question_chars = o.max_question_chars,
                   .max_history_turns = o.max_history_turns,
                   .max_answer_bytes = o.max_answer_bytes};
}

// The most nodes a "done" event lists.
constexpr size_t kMaxDoneNodes = 200;
// The most bytes of a function's arguments a "tool" event shows.
constexpr size_t kMaxToolArgumentBytes = 2000;

// The value of cookie `name` in a Cookie header, or "".
std::string CookieValue(const std::string& header, std::string_view name) {
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string_view part(header.data() + at, end - at);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
    at = end + 1;
  }
  return "";
}

constexpr std::string_view kTokenCookie = "cookgraph_token";

// Whether a request's Host header ("name:port", lower case) names this
// server (docs/commands.md#the-explorers-safety): on loopback, 127.0.0.1, localhost
// or [::1] with its port; on a given address, that address too; on every
// address (0.0.0.0, ::), any address literal with its port, never a name.
bool HostIsOurs(const std::string& header, const std::string& bound, int port) {
  const size_t colon = header.rfind(':');
  if (colon == std::string::npos || header.substr(colon + 1) != std::to_string(port)) return false;
  const std::string name = header.substr(0, colon);
  if (name == "127.0.0.1" || name == "localhost" || name == "[::1]") return true;
  const std::string b = AsciiLower(bound);
  if (b == "0.0.0.0" || b == "::" || b == "[::]") return IsAddressLiteral(name);
  return name == (b.find(':') != std::string::npos ? "[" + b + "]" : b);
}

}  // namespace

// What the routes share with the server that runs them.
struct ServerState {
  explicit ServerState(const GateLimits& limits) : http(limits) {}
  GatedServer http;
  std::atomic<size_t> streams{0};
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable stopped;
  bool running = false;
  socket_t listening = INVALID_SOCKET;  // the socket cpp-httplib last bound
};

namespace {

// Counts an open stream for as long as it lives; `ok` false when there were
// already as many as allowed.
class StreamSlot {
 public:
  StreamSlot(std::atomic<size_t>& count, size_t limit) : count_(count) {
    ok_ = count_.fetch_add(1) < limit;
  }
  ~StreamSlot() { count_.fetch_sub(1); }
  bool ok() const { return ok_; }

 private:
  std::atomic<size_t>& count_;
  bool ok_ = false;
};

// Every request: the Host must name this server (a page elsewhere that
// rebinds its name to 127.0.0.1 sends its own); an Origin, when sent, must
// be this server's; a cross-site fetch is refused; the token, when there is
// one; a query read exactly.
void GuardEveryRequest(GatedServer& http, const ServeOptions& o, const int* bound_port) {
  http.set_pre_routing_handler(
      [&o, bound_port](const httplib::Request& req, httplib::Response& res) {
        const std::string host = AsciiLower(req.get_header_value("Host"));
        if (!HostIsOurs(host, o.host, *bound_port)) {
          SendError(res, 403, "refused: the Host header does not name this server");
          return httplib::Server::HandlerResponse::Handled;
        }
        // Same origin: the page this server sent, at the address the request used.
        if (req.has_header("Origin") &&
            AsciiLower(req.get_header_value("Origin")) != "http://" + host) {
          SendError(res, 403, "refused: a request from another origin");
          return httplib::Server::HandlerResponse::Handled;
        }
        if (AsciiLower(req.get_header_value("Sec-Fetch-Site")) == "cross-site") {
          SendError(res, 403, "refused: a cross-site request");
          return httplib::Server::HandlerResponse::Handled;
        }
        if (!o.token.empty()) {
          const std::string query = req.get_param_value("token");
          const std::string cookie = CookieValue(req.get_header_value("Cookie"), kTokenCookie);
          const std::string bearer = req.get_header_value("Authorization");
          const bool ok = SameSecret(query, o.token) || SameSecret(cookie, o.token) ||
                          SameSecret(bearer, "Bearer " + o.token);
          if (!ok) {
            SendError(res, 401,
                      "refused: this server needs its access token (open the address it printed)");
            return httplib::Server::HandlerResponse::Handled;
          }
          if (SameSecret(query, o.token)) {
            res.set_header("Set-Cookie", fmt::format("{}={}; HttpOnly; SameSite=Strict; Path=/",
                                                     kTokenCookie, o.token));
            // The page's address: the token moves to the cookie and leaves the
            // address bar and the browser's history, as Jupyter does.
            if (req.method == "GET" && req.path == "/") {
              res.status = 303;
              res.set_header("Location", "/");
              res.set_header("Cache-Control", "no-store");
              return httplib::Server::HandlerResponse::Handled;
            }
          }
        }
        if (const std::string problem = QueryProblem(req); !problem.empty()) {
          SendError(res, 400, problem);
          return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
      });
}

// The page and its assets, built in.
void AddPageRoutes(GatedServer& http) {
  auto asset = [](const std::string& name, httplib::Response& res) {
    const Asset* a = FindAsset(name);
    if (a == nullptr) {
      SendError(res, 404, "no such page");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_content(std::string(a->body), std::string(a->type));
  };
  http.Get("/",
           [asset](const httplib::Request&, httplib::Response& res) { asset("index.html", res); });
  http.Get(
      R"(/assets/([A-Za-z0-9_.\-]+))",
      [asset](const httplib::Request& req, httplib::Response& res) { asset(req.matches[1], res); });

  // Browsers ask for it on their own: no icon, and no error in the console.
  http.Get("/favicon.ico",
           [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
}

// A question POSTed to /api/v/N/...: the view and the body, or nullopt once
// the refusal is sent (404 for no such view, 415 for a body that is not
// JSON, else ParseAskBody's).
struct ViewQuestion {
  std::shared_ptr<const View> view;
  AskBody body;
};
std::optional<ViewQuestion> ReadViewQuestion(const Explorer& ex, const ServeOptions& o,
                                             const httplib::Request& req, httplib::Response& res,
                                             bool question_required) {
  const std::optional<size_t> v = ViewNumber(req.matches[1].str());
  const std::shared_ptr<const Dataset> d = ex.data();
  if (!v || *v >= d->views.size()) {
    SendError(res, 404, "no such view");
    return std::nullopt;
  }
  if (!IsJsonBody(req)) {
    SendError(res, 415, "send the question as application/json");
    return std::nullopt;
  }
  std::variant<AskBody, Refusal> parsed = ParseAskBody(req.body, BoundsOf(o), question_required);
  if (const Refusal* r = std::get_if<Refusal>(&parsed)) {
    SendError(res, r->status, r->message);
    return std::nullopt;
  }
  return ViewQuestion{.view = d->views[*v], .body = std::move(std::get<AskBody>(parsed))};
}

// The API's documents, and the prompt of a question.
void AddDocumentRoutes(GatedServer& http, Explorer& ex, const ServeOptions& o) {
  http.Get("/api/index", [&ex](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, ex.IndexJson());
  });
  http.Get("/api/diff",
           [&ex](const httplib::Request&, httplib::Response& res) { Send(res, ex.DiffJson()); });

  // /api/v/N/<what>: one view's documents.
  http.Get(R"(/api/v/([0-9]+)/)"
           R"((summary|graph|node|nodes|search|frames|timeline|findings|whatif|prompt))",
           [&ex, &o](const httplib::Request& req, httplib::Response& res) {
             const std::optional<size_t> v = ViewNumber(req.matches[1].str());
             if (!v) {
               SendError(res, 404, "no such view");
               return;
             }
             const std::string what = req.matches[2];
             if (what != "prompt") {
               const ApiReply reply = ViewDocument(
                   ex, *v, what, [&req](const char* name) { return req.get_param_value(name); });
               return SendJson(res, reply.status, reply.body);
             }
             const std::string q = req.get_param_value("q");
             if (q.size() > o.max_question_chars) {
               return SendError(
                   res, 413,
                   fmt::format("the question is longer than {} bytes", o.max_question_chars));
             }
             const AskHooks& hooks = ex.hooks();
             if (!hooks.preview) return SendError(res, 400, hooks.not_configured);
             const std::shared_ptr<const Dataset> d = ex.data();
             if (*v >= d->views.size()) return SendError(res, 404, "no such view");
             Result<PromptPreview> p =
                 hooks.preview(*d->views[*v], q.empty() ? "(your question)" : q, {});
             if (!p) return SendError(res, 400, p.error().Format());
             SendJson(res, 200, PreviewJson(*p));
           });

  // The prompt of the next turn after a thread: POST {"question", "history"}.
  http.Post(R"(/api/v/([0-9]+)/prompt)", [&ex, &o](const httplib::Request& req,
                                                   httplib::Response& res) {
    const std::optional<ViewQuestion> q =
        ReadViewQuestion(ex, o, req, res, /*question_required=*/false);
    if (!q) return;
    const AskHooks& hooks = ex.hooks();
    if (!hooks.preview) return SendError(res, 400, hooks.not_configured);
    Result<PromptPreview> p = hooks.preview(
        *q->view, q->body.question.empty() ? "(your question)" : q->body.question, q->body.history);
    if (!p) return SendError(res, 400, p.error().Format());
    SendJson(res, 200, PreviewJson(*p));
  });
}

// The ask box: POST {"question": "...", "history": [...]}; the answer
// streams back as server-sent events "piece" ({"text"}) and "tool" ({"name",
// "arguments"}), then "done" ({"nodes", "tokens", "earlier_left_out", ...})
// or "error" ({"message"}); a comment whenever nothing was sent for a second.
void AddAskRoute(GatedServer& http, Explorer& ex, const ServeOptions& o, ServerState* impl) {
  http.Post(R"(/api/v/([0-9]+)/ask)", [&ex, &o, impl](const httplib::Request& req,
                                                      httplib::Response& res) {
    std::optional<ViewQuestion> q = ReadViewQuestion(ex, o, req, res, /*question_required=*/true);
    if (!q) return;
    auto body = std::make_shared<const AskBody>(std::move(q->body));
    const AskHooks& hooks = ex.hooks();
    if (!hooks.ask || !hooks.not_configured.empty()) {
      return SendError(res, 400,
                       hooks.not_configured.empty() ? "no endpoint" : hooks.not_configured);
    }
    auto slot = std::make_shared<StreamSlot>(impl->streams, o.max_streams);
    if (!slot->ok()) return SendError(res, 503, "too many open streams: close a tab or wait");
    std::shared_ptr<const View> view = std::move(q->view);
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream", [&ex, impl, view, body, slot](size_t, httplib::DataSink& sink) {
          using Clock = std::chrono::steady_clock;
          // Set when the page has gone (a write failed) or the server stops:
          // the request to the endpoint then ends (docs/commands.md#the-explorers-safety).
          std::atomic<bool> stop{false};
          std::mutex write_mutex;
          bool open = true;                       // guarded by write_mutex
          Clock::time_point last = Clock::now();  // the last write; guarded by write_mutex
          auto put = [&](const std::string& event) {
            std::lock_guard<std::mutex> lock(write_mutex);
            if (open && !sink.write(event.data(), event.size())) open = false;
            last = Clock::now();
            if (!open) stop.store(true);
            return open;
          };
          // While nothing comes (the model thinks, a function runs) a page that
          // left is noticed by writing: a comment after a second of silence,
          // whose write fails once the page has closed the connection.
          std::mutex beat_mutex;
          std::condition_variable beat_wake;
          bool finished = false;  // guarded by beat_mutex
          std::thread beat([&] {
            std::unique_lock<std::mutex> lock(beat_mutex);
            while (!beat_wake.wait_for(lock, std::chrono::milliseconds(200),
                                       [&] { return finished; })) {
              if (impl->stopping.load()) stop.store(true);
              bool idle = false;
              {
                std::lock_guard<std::mutex> w(write_mutex);
                idle = open && Clock::now() - last >= std::chrono::seconds(1);
              }
              if (idle) put(": waiting\n\n");
            }
          });
          auto finish_beat = [&] {
            {
              std::lock_guard<std::mutex> lock(beat_mutex);
              finished = true;
            }
            beat_wake.notify_all();
            if (beat.joinable()) beat.join();
          };
          struct Finally {  // the beat ends also when the hook throws
            std::function<void()> run;
            ~Finally() { run(); }
          } finally{finish_beat};
          AskEvents events;
          events.on_piece = [&](std::string_view text) {
            return put(SseEvent("piece", json{{"text", std::string(text)}}));
          };
          events.on_tool = [&](std::string_view name, std::string_view arguments) {
            return put(
                SseEvent("tool", json{{"name", ClipBytes(name, 200)},
                                      {"arguments", ClipBytes(arguments, kMaxToolArgumentBytes)}}));
          };
          const Result<AskSummary> answered =
              ex.hooks().ask(*view, body->question, body->history, events, stop);
          finish_beat();
          if (answered) {
            const std::vector<std::string>& nodes = answered->nodes;
            json listed = json::array();
            for (size_t i = 0; i < nodes.size() && i < kMaxDoneNodes; ++i)
              listed.push_back(nodes[i]);
            put(SseEvent("done", json{{"nodes", listed},
                                      {"nodes_total", nodes.size()},
                                      {"tokens", answered->tokens},
                                      {"earlier_left_out", answered->earlier_left_out},
                                      {"requests", answered->requests},
                                      {"tool_calls", answered->tool_calls}}));
          } else {
            put(SseEvent("error", json{{"message", answered.error().Format()},
                                       {"stopped", answered.error().where == kStoppedWhere}}));
          }
          sink.done();
          return true;
        });
  });
}

// The live view: an event "version" whenever the data changes (and once at
// the start), a comment every 10 s so that proxies keep it open.
void AddLiveRoute(GatedServer& http, Explorer& ex, const ServeOptions& o, ServerState* impl) {
  http.Get("/api/live", [&ex, &o, impl](const httplib::Request&, httplib::Response& res) {
    auto slot = std::make_shared<StreamSlot>(impl->streams, o.max_streams);
    if (!slot->ok()) return SendError(res, 503, "too many open streams: close a tab or wait");
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream", [&ex, impl, slot](size_t, httplib::DataSink& sink) {
          uint64_t sent = UINT64_MAX;
          auto last_write = std::chrono::steady_clock::now();
          while (!impl->stopping.load()) {
            const std::shared_ptr<const Dataset> d = ex.data();
            const auto now = std::chrono::steady_clock::now();
            std::string event;
            if (d->version != sent) {
              sent = d->version;
              event = SseEvent("version", json{{"version", d->version}, {"status", d->status}});
            } else if (now - last_write > std::chrono::seconds(10)) {
              event = ": keep-alive\n\n";
            }
            if (!event.empty()) {
              if (!sink.write(event.data(), event.size())) return false;
              last_write = now;
            }
            if (!sink.is_writable()) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
          sink.done();
          return true;
        });
  });
}

GateLimits LimitsOf(const ServeOptions& o) {
  GateLimits limits = o.gate;
  limits.max_body_bytes = o.max_body_bytes;
  // Streams hold a worker each: enough workers that the page's other
  // requests are still answered with every stream open.
  limits.workers = o.max_streams + 8;
  return limits;
}

class HttpServer final : public HttpBackend {
 public:
  HttpServer(Explorer& explorer, const ServeOptions& options)
      : explorer_(explorer), options_(options), state_(LimitsOf(options_)) {}
  ~HttpServer() override { Stop(); }

  Status Start() override;
  int port() const override { return port_; }
  void Stop() override {
    state_.stopping = true;
    state_.http.stop();
    if (thread_.joinable()) thread_.join();
  }
  void Wait() override {
    std::unique_lock<std::mutex> lock(state_.mutex);
    state_.stopped.wait(lock, [this] { return !state_.running; });
  }
  bool running() const override {
    std::lock_guard<std::mutex> lock(state_.mutex);
    return state_.running;
  }

 private:
  Explorer& explorer_;
  const ServeOptions options_;
  int port_ = 0;
  mutable ServerState state_;  // its mutex, also in the const running()
  std::thread thread_;
};

Status HttpServer::Start() {
  GatedServer& http = state_.http;
  ServerState* impl = &state_;
  const ServeOptions& o = options_;
  Explorer& ex = explorer_;
  int* bound_port = &port_;

  // SO_REUSEADDR (a restart binds at once past TIME_WAIT), never
  // cpp-httplib's default SO_REUSEPORT: with it a second server on the same
  // port would bind too and take half of the connections.
  http.set_socket_options([impl](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    impl->listening = sock;
  });
  http.set_payload_max_length(o.max_body_bytes);
  http.set_default_headers(kSecurityHeaders);
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                std::exception_ptr) { SendError(res, 500, "internal error"); });

  GuardEveryRequest(http, o, bound_port);
  AddPageRoutes(http);
  AddDocumentRoutes(http, ex, o);
  AddAskRoute(http, ex, o, impl);
  AddLiveRoute(http, ex, o, impl);

  const std::string bind_host = o.host;
  if (o.port == 0) {
    port_ = http.bind_to_any_port(bind_host);
    if (port_ <= 0) {
      return Error{.where = "--listen",
                   .message = fmt::format("cannot listen on {}: no free port", bind_host)};
    }
  } else if (!http.bind_to_port(bind_host, o.port)) {
    return Error{
        .where = "--port",
        .message = fmt::format("cannot listen on {}:{} (in use, or not this machine's address)",
                               bind_host, o.port)};
  } else {
    port_ = o.port;
  }
  // Debian's cpp-httplib is a shared library built to listen with a backlog
  // of 5: a burst past it (a page's fetches while the accept thread waits for
  // a core) has its SYNs dropped, and each of those clients tries again only
  // after 1 s, then 3 s. A second listen() on the bound socket raises it to
  // the gate's connection limit (the kernel caps it at net.core.somaxconn).
  if (::listen(impl->listening,
               static_cast<int>(std::min<size_t>(o.gate.max_connections, SOMAXCONN))) != 0) {
    return Error{.where = "--listen",
                 .message = fmt::format("cannot listen on {}:{}", bind_host, port_)};
  }
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->running = true;
  }
  thread_ = std::thread([impl] {
    impl->http.listen_after_bind();
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->running = false;
    impl->stopped.notify_all();
  });
  // cpp-httplib's stop() does nothing until its loop runs: a Stop() right
  // after Start() (Ctrl-C at once, a test) would otherwise wait forever.
  while (!http.is_running() && running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return {};
}

}  // namespace
}  // namespace cookgraph::server

// The module's entry (server/http_backend.h): C linkage, so that dlsym finds
// it by this name.
extern "C" __attribute__((visibility("default"))) cookgraph::server::HttpBackend*
cookgraph_http_backend(cookgraph::server::Explorer& explorer,
                       const cookgraph::server::ServeOptions& options) {
  try {
    return new cookgraph::server::HttpServer(explorer, options);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
