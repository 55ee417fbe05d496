// The stream the request gate (server/request_gate.cc) hands cpp-httplib for
// one complete request it has read. Not a public header.

#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

#include <httplib.h>

namespace cookgraph::server::gate_internal {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;

inline bool WouldBlock() { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

// cpp-httplib's view of one complete request held in memory: reads end at
// the request's last byte (what the route leaves unread, such as the body
// of a refused request, is dropped, never read as the next request); writes
// go to the socket, and what a slow client does not take at once is left
// for the reading thread to send, within bounds, so that the worker is free.
class GateStream : public httplib::Stream {
 public:
  struct Bounds {
    Ms stall;
    size_t unsent;        // per connection
    size_t unsent_total;  // across connections
  };
  GateStream(int fd, const std::string& bytes, size_t end, std::string& unsent,
             std::atomic<size_t>& unsent_total, Bounds bounds)
      : fd_(fd), bytes_(bytes), end_(end), unsent_(unsent), unsent_total_(unsent_total),
        bounds_(bounds), stall_left_(bounds.stall) {}

  bool is_readable() const override { return at_ < end_; }
  bool is_writable() const override {
    if (!SendUnsent()) return false;
    if (!unsent_.empty() && unsent_.size() >= bounds_.unsent && !(Wait() && SendUnsent())) return false;
    char c;  // a peer that closed reads as end of file
    return recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, end_ - at_);
    std::memcpy(ptr, bytes_.data() + at_, n);
    at_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    const size_t whole = size;
    for (;;) {
      if (!SendUnsent()) return -1;
      if (unsent_.empty()) {
        const ssize_t n = send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && !WouldBlock()) return -1;
        const size_t sent = n > 0 ? static_cast<size_t>(n) : 0;
        ptr += sent;
        size -= sent;
        if (size == 0) return static_cast<ssize_t>(whole);
      }
      if (unsent_.size() + size <= bounds_.unsent &&
          unsent_total_.fetch_add(size) + size <= bounds_.unsent_total) {
        unsent_.append(ptr, size);
        return static_cast<ssize_t>(whole);
      }
      if (unsent_.size() + size <= bounds_.unsent) unsent_total_ -= size;  // not taken
      if (!Wait()) return -1;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  // Sends what was left unsent, as much as the socket takes now; false on
  // an error (the client has gone).
  bool SendUnsent() const {
    while (!unsent_.empty()) {
      const ssize_t n = send(fd_, unsent_.data(), unsent_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) return WouldBlock();
      unsent_.erase(0, static_cast<size_t>(n));
      unsent_total_ -= static_cast<size_t>(n);
    }
    return true;
  }
  // Waits for the socket to take more, out of the request's stall budget.
  bool Wait() const {
    if (stall_left_.count() <= 0) return false;
    const Clock::time_point start = Clock::now();
    pollfd p{.fd = fd_, .events = POLLOUT, .revents = 0};
    const int ready = poll(&p, 1, static_cast<int>(stall_left_.count()));
    stall_left_ -= std::chrono::duration_cast<Ms>(Clock::now() - start) + Ms(1);
    return ready == 1 && !(p.revents & (POLLERR | POLLHUP));
  }
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
  const std::string& bytes_;
  size_t at_ = 0;
  size_t end_;
  std::string& unsent_;
  std::atomic<size_t>& unsent_total_;
  Bounds bounds_;
  mutable Ms stall_left_;
};

}  // namespace cookgraph::server::gate_internal
