#include "server/request_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"
#include "server/gate_stream.h"

namespace cookgraph::server {
namespace {

using gate_internal::GateStream;
using gate_internal::WouldBlock;
using Clock = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;

// A response written by the gate itself: a JSON error, then the connection
// closes (docs/commands.md#the-explorers-safety).
std::string RefusalBytes(int status, std::string_view reason, const std::string& message) {
  const std::string body = nlohmann::json{{"error", message}}.dump();
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json; charset=utf-8\r\n"
      "Content-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n\r\n{}",
      status, reason, body.size(), body);
}

// cpp-httplib's accept loop runs each task it is given at once: the task
// hands the connection to the gate (GatedServer::process_and_close_socket).
class InlineQueue : public httplib::TaskQueue {
 public:
  explicit InlineQueue(std::function<void()> on_shutdown) : on_shutdown_(std::move(on_shutdown)) {}
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override { on_shutdown_(); }

 private:
  std::function<void()> on_shutdown_;
};

// A request head's header lines, each as name and value, or why it cannot
// be read as cpp-httplib reads it: every line must end in CRLF, and a name
// must be a token (no space before the colon: RFC 9112 §5.1).
struct HeadLines {
  std::vector<std::pair<std::string, std::string_view>> fields;  // lower-case name
  std::string problem;
};

HeadLines ParseHead(std::string_view head) {
  HeadLines out;
  size_t at = 0;
  bool first = true;
  while (at < head.size()) {
    const size_t end = head.find('\n', at);
    if (end == std::string_view::npos || end == at || head[end - 1] != '\r') {
      out.problem = "a header line does not end in CRLF";
      return out;
    }
    const std::string_view line = head.substr(at, end - 1 - at);
    at = end + 1;
    if (first || line.empty()) {
      first = false;
      continue;
    }
    const size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    if (colon == std::string_view::npos || name.empty() ||
        name.find_first_of(" \t") != std::string_view::npos) {
      out.problem = "a header line is not NAME: VALUE";
      return out;
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    out.fields.emplace_back(AsciiLower(name), value);
  }
  return out;
}

// The most bytes read from one connection before the others get their turn.
constexpr size_t kReadTurnBytes = 256 << 10;

}  // namespace

struct GatedServer::Gate {
  // One client connection while the gate holds it.
  struct Conn {
    enum class Phase { kIdle, kHead, kBody, kDraining, kFlushing };
    int fd = -1;
    std::string in;       // bytes received and not yet served
    std::string unsent;   // response bytes the client has not taken yet
    size_t scanned = 0;   // bytes of `in` searched for the head's blank line
    size_t lines = 0;     // line ends among them
    size_t head_end = 0;  // past the blank line; 0 while the head is incomplete
    size_t body = 0;      // the request's Content-Length
    Phase phase = Phase::kIdle;
    Clock::time_point deadline;
    Clock::time_point waiting_since;  // for choosing whom to close when full
    size_t served = 0;
    bool eof = false;    // the client shut its side: no request after those it sent
    bool last = false;   // closes once `unsent` is sent

    void NextRequest(Clock::time_point now, Clock::duration idle) {
      in.erase(0, head_end + body);
      if (in.capacity() > (64 << 10)) in.shrink_to_fit();  // a large body's room goes back
      scanned = lines = head_end = body = 0;
      phase = Phase::kIdle;
      deadline = now + idle;
      waiting_since = now;
    }
  };

  Gate(GatedServer& owner, const GateLimits& given) : server(owner), limits(given) {
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
      const size_t room = files.rlim_cur > 128 ? files.rlim_cur - 64 : 64;
      limits.max_connections = std::min(limits.max_connections, room);
    }
  }

  void Start() {
    epoll = epoll_create1(EPOLL_CLOEXEC);
    wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event e{.events = EPOLLIN, .data = {.fd = wake}};
    epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &e);
    reader = std::thread([this] { Read(); });
    for (size_t i = 0; i < limits.workers; ++i) workers.emplace_back([this] { Work(); });
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      // Requests being served end at their next write (an open stream too).
      for (int fd : serving) shutdown(fd, SHUT_RDWR);
    }
    Wake();
    ready_cv.notify_all();
    if (reader.joinable()) reader.join();
    for (std::thread& w : workers) w.join();
    workers.clear();
    // A worker may have handed a connection back after the reader ended.
    for (std::unique_ptr<Conn>& c : ready) Drop(c->fd);
    for (std::unique_ptr<Conn>& c : incoming) Drop(c->fd);
    ready.clear();
    incoming.clear();
    close(epoll);
    close(wake);
  }

  // From the accept loop (counted in `open` already), or a worker done with
  // a request.
  void Hand(std::unique_ptr<Conn> c) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      incoming.push_back(std::move(c));
    }
    Wake();
  }

  void Wake() {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(wake, &one, sizeof one);
  }

  void Drop(int fd) {
    close(fd);
    --open;
  }

  // The reading thread: every connection that waits for (the rest of) a
  // request, or is being sent the rest of a response.
  void Read() {
    std::vector<epoll_event> events(64);
    while (!stop) {
      const int n = epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == wake) {
          uint64_t count;
          [[maybe_unused]] const ssize_t r = read(wake, &count, sizeof count);
          continue;
        }
        auto it = conns.find(fd);
        if (it == conns.end()) continue;
        if (it->second->phase == Conn::Phase::kFlushing) {
          Flush(it->second);
        } else {
          Receive(it->second);
        }
      }
      TakeIncoming();
      Expire(Clock::now());
    }
    for (auto& [fd, c] : conns) {
      unsent_total -= c->unsent.size();
      Drop(fd);
    }
    conns.clear();
  }

  void TakeIncoming() {
    std::deque<std::unique_ptr<Conn>> taken;
    {
      std::lock_guard<std::mutex> lock(mutex);
      taken.swap(incoming);
    }
    for (std::unique_ptr<Conn>& c : taken) {
      if (c->served == 0 && open > limits.max_connections && !CloseLongestWaiting()) {
        const std::string reply = RefusalBytes(503, "Service Unavailable", "too many connections: try again shortly");
        [[maybe_unused]] const ssize_t n = send(c->fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        Drop(c->fd);
        continue;
      }
      const int fd = c->fd;
      const bool flushing = !c->unsent.empty();
      if (flushing) {
        c->phase = Conn::Phase::kFlushing;
        c->deadline = Clock::now() + limits.flush_timeout;
      }
      epoll_event e{.events = flushing ? static_cast<uint32_t>(EPOLLOUT) : EPOLLIN | EPOLLRDHUP,
                    .data = {.fd = fd}};
      if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e) != 0) {
        unsent_total -= c->unsent.size();
        Drop(fd);
        continue;
      }
      std::unique_ptr<Conn>& held = conns[fd] = std::move(c);
      const bool eof = held->eof;
      if (flushing) {
        Flush(held);
      } else {
        Advance(held);  // a pipelined request may be whole already (and dispatched)
        if (eof && conns.count(fd) != 0) Close(fd);  // nothing more will come
      }
    }
  }

  // Closes the connection that has waited longest for a request; false when
  // none is waiting.
  bool CloseLongestWaiting() {
    auto oldest = conns.end();
    for (auto it = conns.begin(); it != conns.end(); ++it) {
      if (oldest == conns.end() || it->second->waiting_since < oldest->second->waiting_since) oldest = it;
    }
    if (oldest == conns.end()) return false;
    Close(oldest->first);
    return true;
  }

  void Close(int fd) {
    auto it = conns.find(fd);
    if (it == conns.end()) return;
    if (it->second->phase == Conn::Phase::kBody) buffered -= it->second->body;
    unsent_total -= it->second->unsent.size();
    epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nullptr);
    Drop(fd);
    conns.erase(it);
  }

  // Sends the rest of a response to a slow client, then waits for its next
  // request (or closes).
  void Flush(std::unique_ptr<Conn>& c) {
    const int fd = c->fd;
    while (!c->unsent.empty()) {
      const ssize_t n = send(fd, c->unsent.data(), c->unsent.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && WouldBlock()) return;
      if (n < 0) return Close(fd);
      c->unsent.erase(0, static_cast<size_t>(n));
      unsent_total -= static_cast<size_t>(n);
    }
    c->unsent.shrink_to_fit();
    if (c->last) return Close(fd);
    c->phase = Conn::Phase::kIdle;
    c->deadline = Clock::now() + limits.idle_timeout;
    epoll_event e{.events = EPOLLIN | EPOLLRDHUP, .data = {.fd = fd}};
    epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &e);
    const bool eof = c->eof;
    Advance(c);  // may dispatch it
    if (eof && conns.count(fd) != 0) Close(fd);
  }

  // Reads what the socket has, up to what the request needs, and at most a
  // turn's worth before the other connections.
  void Receive(std::unique_ptr<Conn>& c) {
    char buffer[16 << 10];
    const int fd = c->fd;
    for (size_t turn = 0; turn < kReadTurnBytes;) {
      size_t want = sizeof buffer;
      if (c->phase != Conn::Phase::kDraining) {
        const size_t need = c->head_end == 0 ? limits.max_head_bytes + 1 : c->head_end + c->body;
        if (c->in.size() >= need) break;
        want = std::min(want, need - c->in.size());
      }
      const ssize_t n = recv(fd, buffer, want, MSG_DONTWAIT);
      if (n == 0) {  // the client is done sending: whole requests are still served
        c->eof = true;
        break;
      }
      if (n < 0 && !WouldBlock()) return Close(fd);
      if (n < 0) break;
      turn += static_cast<size_t>(n);
      if (c->phase != Conn::Phase::kDraining) c->in.append(buffer, static_cast<size_t>(n));
    }
    const bool eof = c->eof;
    Advance(c);  // may dispatch it, which takes it out of `conns`
    if (eof && conns.count(fd) != 0) Close(fd);
  }

  // Moves a connection on with what it holds: refused, dispatched, or waiting.
  void Advance(std::unique_ptr<Conn>& c) {
    if (c->phase == Conn::Phase::kDraining || c->in.empty()) return;
    const Clock::time_point now = Clock::now();
    if (c->phase == Conn::Phase::kIdle) {
      c->phase = Conn::Phase::kHead;
      c->deadline = now + limits.head_timeout;
    }
    if (c->head_end == 0 && !FindHeadEnd(*c)) {
      if (TooManyLines(*c) || c->in.size() > limits.max_head_bytes) return TooLarge(c);
      return;
    }
    if (c->phase == Conn::Phase::kHead && !ReadHead(c, now)) return;
    if (c->in.size() >= c->head_end + c->body) Dispatch(c->fd);
  }

  // The request line, the header lines and the blank line: two more than
  // the headers.
  bool TooManyLines(const Conn& c) const { return c.lines > limits.max_head_lines + 2; }

  bool FindHeadEnd(Conn& c) const {
    const size_t end = std::min(c.in.size(), limits.max_head_bytes);
    for (; c.scanned < end; ++c.scanned) {
      if (c.in[c.scanned] != '\n') continue;
      ++c.lines;
      const size_t i = c.scanned;
      if (TooManyLines(c)) return false;
      // The blank line; a bare LF is refused when the head is read.
      if ((i >= 1 && c.in[i - 1] == '\n') || (i >= 2 && c.in[i - 1] == '\r' && c.in[i - 2] == '\n')) {
        c.head_end = i + 1;
        ++c.scanned;
        return true;
      }
    }
    return false;
  }

  void TooLarge(std::unique_ptr<Conn>& c) {
    Refuse(c, 431, "Request Header Fields Too Large",
           fmt::format("the request head is over {} bytes or {} header lines", limits.max_head_bytes,
                       limits.max_head_lines));
  }

  // The head is whole: checked, and its body's length read. False when refused.
  bool ReadHead(std::unique_ptr<Conn>& c, Clock::time_point now) {
    if (TooManyLines(*c)) {
      TooLarge(c);
      return false;
    }
    const HeadLines head = ParseHead(std::string_view(c->in.data(), c->head_end));
    if (!head.problem.empty()) {
      Refuse(c, 400, "Bad Request", head.problem);
      return false;
    }
    std::vector<std::string_view> lengths;
    for (const auto& [name, value] : head.fields) {
      if (name == "transfer-encoding") {
        Refuse(c, 411, "Length Required", "send the body with a Content-Length (a chunked body is not read)");
        return false;
      }
      if (name == "content-length") lengths.push_back(value);
    }
    size_t length = 0;
    for (std::string_view v : lengths) {
      const bool digits = !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string_view::npos;
      if (!digits || v != lengths.front()) {
        Refuse(c, 400, "Bad Request", "Content-Length: not one whole number");
        return false;
      }
      length = std::stoull(std::string(v));
    }
    if (length > limits.max_body_bytes) {
      Refuse(c, 413, "Payload Too Large", fmt::format("the body is over {} bytes", limits.max_body_bytes));
      return false;
    }
    if (buffered + length > limits.max_buffered_body_bytes) {
      Refuse(c, 503, "Service Unavailable", "the server is reading other bodies: send it again shortly");
      return false;
    }
    for (const auto& [name, value] : head.fields) {
      if (name == "expect" && length > 0 && AsciiLower(value) == "100-continue") {
        // Answered here, where the body is read; cpp-httplib would answer it
        // again, so the header's name is changed in place ("Xxpect").
        static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] const ssize_t n =
            send(c->fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        const size_t at = static_cast<size_t>(value.data() - c->in.data());
        c->in[c->in.rfind('\n', at) + 1] = 'X';
      }
    }
    c->body = length;
    buffered += length;
    c->phase = Conn::Phase::kBody;
    c->deadline = now + limits.body_timeout;
    return true;
  }

  void Refuse(std::unique_ptr<Conn>& c, int status, std::string_view reason, const std::string& message) {
    const std::string reply = RefusalBytes(status, reason, message);
    [[maybe_unused]] const ssize_t n = send(c->fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(c->fd, SHUT_WR);
    if (c->phase == Conn::Phase::kBody) buffered -= c->body;
    // What the client still sends is read and dropped for a moment, so that
    // closing does not reset the connection before it reads the reply.
    c->phase = Conn::Phase::kDraining;
    c->in.clear();
    c->in.shrink_to_fit();
    c->deadline = Clock::now() + std::chrono::seconds(1);
  }

  void Expire(Clock::time_point now) {
    std::vector<int> late;
    for (auto& [fd, c] : conns) {
      if (c->deadline <= now) late.push_back(fd);
    }
    for (int fd : late) {
      std::unique_ptr<Conn>& c = conns[fd];
      if (c->phase == Conn::Phase::kHead || c->phase == Conn::Phase::kBody) {
        const auto limit = c->phase == Conn::Phase::kHead ? limits.head_timeout : limits.body_timeout;
        Refuse(c, 408, "Request Timeout",
               fmt::format("the request did not arrive within {} s", limit.count() / 1000.0));
      } else {
        Close(fd);  // idle, drained, or too slow to take its response
      }
    }
  }

  void Dispatch(int fd) {
    auto it = conns.find(fd);
    epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nullptr);
    {
      std::lock_guard<std::mutex> lock(mutex);
      ready.push_back(std::move(it->second));
    }
    conns.erase(it);
    ready_cv.notify_one();
  }

  // A worker: one complete request at a time.
  void Work() {
    for (;;) {
      std::unique_ptr<Conn> c;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready_cv.wait(lock, [this] { return stop || !ready.empty(); });
        if (stop) return;
        c = std::move(ready.front());
        ready.pop_front();
        serving.insert(c->fd);
      }
      c->last = ++c->served >= limits.requests_per_connection;
      GateStream stream(c->fd, c->in, c->head_end + c->body, c->unsent, unsent_total,
                        {.stall = limits.stall_timeout,
                         .unsent = limits.max_unsent_bytes,
                         .unsent_total = limits.max_unsent_total_bytes});
      const bool keep = server.Serve(stream, c->last);
      buffered -= c->body;  // read, queued and served
      c->last = c->last || !keep;
      bool stopping;
      {
        std::lock_guard<std::mutex> lock(mutex);
        serving.erase(c->fd);
        stopping = stop;
      }
      if (stopping || (c->last && c->unsent.empty())) {
        unsent_total -= c->unsent.size();
        Drop(c->fd);
        continue;
      }
      c->NextRequest(Clock::now(), limits.idle_timeout);
      Hand(std::move(c));
    }
  }

  GatedServer& server;
  GateLimits limits;
  int epoll = -1;
  int wake = -1;
  std::thread reader;
  std::vector<std::thread> workers;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;  // the reading thread's
  // Declared body bytes of the requests being read, queued or served.
  std::atomic<size_t> buffered{0};
  std::atomic<size_t> unsent_total{0};  // response bytes left to send, in all
  std::atomic<size_t> open{0};          // connections open, wherever they are
  std::mutex mutex;
  std::atomic<bool> stop{false};               // set under mutex (no worker misses it)
  std::deque<std::unique_ptr<Conn>> incoming;  // guarded by mutex
  std::deque<std::unique_ptr<Conn>> ready;     // guarded by mutex
  std::set<int> serving;                       // guarded by mutex: sockets in a worker
  std::condition_variable ready_cv;
};

GatedServer::GatedServer(GateLimits limits) : limits_(limits) {
  // What cpp-httplib announces in Keep-Alive: the gate's own figures.
  set_keep_alive_timeout(std::chrono::duration_cast<std::chrono::seconds>(limits.idle_timeout).count());
  set_keep_alive_max_count(limits.requests_per_connection);
  new_task_queue = [this] {
    gate_ = std::make_shared<Gate>(*this, limits_);
    gate_->Start();
    return new InlineQueue([gate = gate_] { gate->Stop(); });
  };
}

GatedServer::~GatedServer() = default;

bool GatedServer::process_and_close_socket(socket_t sock) {
  const int flags = fcntl(sock, F_GETFL, 0);
  fcntl(sock, F_SETFL, flags | O_NONBLOCK);
  auto c = std::make_unique<Gate::Conn>();
  c->fd = sock;
  c->NextRequest(Clock::now(), limits_.idle_timeout);
  ++gate_->open;
  gate_->Hand(std::move(c));
  return true;
}

bool GatedServer::Serve(httplib::Stream& stream, bool last) {
  bool closed = false;
  const bool ok = process_request(stream, last, closed, nullptr);
  return ok && !closed && !last;
}

}  // namespace cookgraph::server
