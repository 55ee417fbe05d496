#include "server/request_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace cookgraph::server {
namespace {

using Clock = std::chrono::steady_clock;

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

// cpp-httplib's view of a complete request held in memory: reads come from
// the gate's buffer, writes go to the socket (non-blocking, waited for).
class GateStream : public httplib::Stream {
 public:
  GateStream(int fd, std::string& bytes, std::chrono::milliseconds write_timeout)
      : fd_(fd), bytes_(bytes), write_timeout_(write_timeout) {}

  bool is_readable() const override { return at_ < bytes_.size(); }
  bool is_writable() const override {
    pollfd p{.fd = fd_, .events = POLLOUT, .revents = 0};
    if (poll(&p, 1, static_cast<int>(write_timeout_.count())) != 1 || (p.revents & (POLLERR | POLLHUP))) {
      return false;
    }
    char c;  // a peer that closed reads as end of file
    return recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    // The request is whole: past it is the end (a chunked body was refused).
    const size_t n = std::min(size, bytes_.size() - at_);
    std::memcpy(ptr, bytes_.data() + at_, n);
    at_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    const Clock::time_point end = Clock::now() + write_timeout_;
    for (;;) {
      const ssize_t n = send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return n;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      pollfd p{.fd = fd_, .events = POLLOUT, .revents = 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) return -1;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

  /// The bytes after this request (a pipelined next one), moved to the front.
  void KeepRest() { bytes_.erase(0, at_); }

 private:
  void Address(int (*get)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ip.clear();
    port = 0;
    if (get(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
      inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
      port = ntohs(v4->sin_port);
    } else if (a.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
      port = ntohs(v6->sin6_port);
    }
    ip = text;
  }

  int fd_;
  std::string& bytes_;
  size_t at_ = 0;
  std::chrono::milliseconds write_timeout_;
};

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

// The value of header `name` (lower case) in a request head, each one found.
std::vector<std::string_view> HeaderValues(std::string_view head, std::string_view name) {
  std::vector<std::string_view> values;
  size_t at = head.find('\n');  // past the request line
  while (at != std::string_view::npos && at + 1 < head.size()) {
    const size_t start = at + 1;
    size_t end = head.find('\n', start);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && AsciiLower(line.substr(0, colon)) == name) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
      values.push_back(value);
    }
    at = end;
  }
  return values;
}

}  // namespace

struct GatedServer::Gate {
  // One client connection while the gate holds it.
  struct Conn {
    enum class Phase { kIdle, kHead, kBody, kDraining };
    int fd = -1;
    std::string in;       // bytes received and not yet served
    size_t scanned = 0;   // bytes of `in` searched for the head's blank line
    size_t lines = 0;     // line ends among them
    size_t head_end = 0;  // past the blank line; 0 while the head is incomplete
    size_t body = 0;      // the request's Content-Length
    Phase phase = Phase::kIdle;
    Clock::time_point deadline;
    Clock::time_point waiting_since;  // for choosing whom to close when full
    size_t served = 0;
    bool eof = false;  // the client shut its side: no request after this one

    void NextRequest(Clock::time_point now, Clock::duration idle) {
      scanned = lines = head_end = body = 0;
      phase = Phase::kIdle;
      deadline = now + idle;
      waiting_since = now;
    }
  };

  Gate(GatedServer& owner, const GateLimits& given) : server(owner), limits(given) {}

  void Start() {
    epoll = epoll_create1(EPOLL_CLOEXEC);
    wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event e{.events = EPOLLIN, .data = {.fd = wake}};
    epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &e);
    reader = std::thread([this] { Read(); });
    for (size_t i = 0; i < limits.workers; ++i) workers.emplace_back([this] { Work(); });
  }

  void Stop() {
    stop = true;
    Wake();
    ready_cv.notify_all();
    if (reader.joinable()) reader.join();
    for (std::thread& w : workers) w.join();
    workers.clear();
    // A worker may have handed a connection back after the reader ended.
    for (std::unique_ptr<Conn>& c : ready) close(c->fd);
    for (std::unique_ptr<Conn>& c : incoming) close(c->fd);
    ready.clear();
    incoming.clear();
    close(epoll);
    close(wake);
  }

  // From the accept loop, or a worker done with a request: the connection
  // waits for its next request.
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

  // The reading thread: every connection that waits for (the rest of) a request.
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
        if (it != conns.end()) Receive(it->second);
      }
      TakeIncoming();
      Expire(Clock::now());
    }
    for (auto& [fd, c] : conns) close(fd);
    conns.clear();
    std::lock_guard<std::mutex> lock(mutex);
    for (std::unique_ptr<Conn>& c : incoming) close(c->fd);
    incoming.clear();
  }

  void TakeIncoming() {
    std::deque<std::unique_ptr<Conn>> taken;
    {
      std::lock_guard<std::mutex> lock(mutex);
      taken.swap(incoming);
    }
    for (std::unique_ptr<Conn>& c : taken) {
      if (conns.size() >= limits.max_connections) CloseLongestWaiting();
      const int fd = c->fd;
      epoll_event e{.events = EPOLLIN | EPOLLRDHUP, .data = {.fd = fd}};
      if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e) != 0) {
        close(fd);
        continue;
      }
      std::unique_ptr<Conn>& held = conns[fd] = std::move(c);
      Advance(held);  // a pipelined request may be whole already
    }
  }

  void CloseLongestWaiting() {
    auto oldest = conns.end();
    for (auto it = conns.begin(); it != conns.end(); ++it) {
      if (oldest == conns.end() || it->second->waiting_since < oldest->second->waiting_since) oldest = it;
    }
    if (oldest != conns.end()) Close(oldest->first);
  }

  void Close(int fd) {
    auto it = conns.find(fd);
    if (it == conns.end()) return;
    if (it->second->phase == Conn::Phase::kBody) buffered -= it->second->body;
    epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    conns.erase(it);
  }

  // Reads what the socket has, up to what the request needs.
  void Receive(std::unique_ptr<Conn>& c) {
    char buffer[16 << 10];
    const int fd = c->fd;
    for (;;) {
      size_t want = sizeof buffer;
      if (c->phase != Conn::Phase::kDraining) {
        const size_t need = c->head_end == 0 ? limits.max_head_bytes + 1 : c->head_end + c->body;
        if (c->in.size() >= need) break;
        want = std::min(want, need - c->in.size());
      }
      const ssize_t n = recv(fd, buffer, want, MSG_DONTWAIT);
      if (n == 0) {  // the client is done sending: a whole request is still served
        c->eof = true;
        break;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return Close(fd);
      if (n < 0) break;
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

  bool FindHeadEnd(Conn& c) {
    const size_t end = std::min(c.in.size(), limits.max_head_bytes);
    for (; c.scanned < end; ++c.scanned) {
      if (c.in[c.scanned] != '\n') continue;
      ++c.lines;
      const size_t i = c.scanned;
      if (TooManyLines(c)) return false;
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
           fmt::format("the request head is over {} bytes or {} lines", limits.max_head_bytes,
                       limits.max_head_lines));
  }

  // The head is whole: its body's length, checked. False when refused.
  bool ReadHead(std::unique_ptr<Conn>& c, Clock::time_point now) {
    if (TooManyLines(*c)) {
      TooLarge(c);
      return false;
    }
    std::string_view head(c->in.data(), c->head_end);
    if (!HeaderValues(head, "transfer-encoding").empty()) {
      Refuse(c, 411, "Length Required", "send the body with a Content-Length (a chunked body is not read)");
      return false;
    }
    const std::vector<std::string_view> lengths = HeaderValues(head, "content-length");
    size_t length = 0;
    for (std::string_view v : lengths) {
      const bool digits = !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string_view::npos;
      const size_t value = digits ? std::stoull(std::string(v)) : 0;
      if (!digits || (v != lengths.front())) {
        Refuse(c, 400, "Bad Request", "Content-Length: not one whole number");
        return false;
      }
      length = value;
    }
    if (length > limits.max_body_bytes) {
      Refuse(c, 413, "Payload Too Large", fmt::format("the body is over {} bytes", limits.max_body_bytes));
      return false;
    }
    if (buffered + length > limits.max_buffered_body_bytes) {
      Refuse(c, 503, "Service Unavailable", "the server is reading other bodies: send it again shortly");
      return false;
    }
    for (std::string_view v : HeaderValues(head, "expect")) {
      if (length > 0 && AsciiLower(v) == "100-continue") {
        // Answered here, where the body is read; cpp-httplib would answer it
        // again, so the header's name is changed in place ("Xxpect").
        static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] const ssize_t n =
            send(c->fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        const size_t at = static_cast<size_t>(v.data() - c->in.data());
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
        Close(fd);  // idle, or drained
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
      }
      const bool last = ++c->served >= limits.requests_per_connection || c->eof;
      const bool keep = server.Serve(c->fd, c->in, last);
      buffered -= c->body;  // read, queued and served
      if (!keep || stop) {
        close(c->fd);
        continue;
      }
      c->NextRequest(Clock::now(), limits.idle_timeout);
      Hand(std::move(c));
    }
  }

  GatedServer& server;
  const GateLimits limits;
  int epoll = -1;
  int wake = -1;
  std::atomic<bool> stop{false};
  std::thread reader;
  std::vector<std::thread> workers;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;  // the reading thread's
  // Declared body bytes of the requests being read, queued or served.
  std::atomic<size_t> buffered{0};
  std::mutex mutex;
  std::deque<std::unique_ptr<Conn>> incoming;  // guarded by mutex
  std::deque<std::unique_ptr<Conn>> ready;     // guarded by mutex
  std::condition_variable ready_cv;
};

GatedServer::GatedServer(GateLimits limits) : limits_(limits) {
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
  gate_->Hand(std::move(c));
  return true;
}

bool GatedServer::Serve(int fd, std::string& bytes, bool last) {
  GateStream stream(fd, bytes, limits_.write_timeout);
  bool closed = false;
  const bool ok = process_request(stream, last, closed, nullptr);
  stream.KeepRest();
  return ok && !closed && !last;
}

}  // namespace cookgraph::server
