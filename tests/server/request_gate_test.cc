// The request gate (server/request_gate.h) under clients that do not read
// their answers, with a small server send buffer so that the kernel does not
// take the answers for them: workers stay free for answers up to the
// unsent bound, and are freed after the stall budget for larger ones. The
// floods and slow senders: tests/tools/serve_flood.py.

#include "server/request_gate.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/explorer.h"
#include "server/http_server.h"
#include "tests/server/views.h"

namespace cookgraph::server {
namespace {

using Clock = std::chrono::steady_clock;

class Gate {
 public:
  explicit Gate(GateLimits limits) : http_(limits) {
    http_.set_socket_options([](socket_t s) {
      int yes = 1;
      setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      int small = 16 << 10;  // accepted sockets inherit it
      setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    });
    http_.Get("/ping", [](const httplib::Request&, httplib::Response& res) { res.set_content("pong", "text/plain"); });
    http_.Get("/small", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(600 << 10, 'x'), "text/plain");
    });
    http_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(6 << 20, 'x'), "text/plain");
    });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Gate() {
    http_.stop();
    thread_.join();
  }
  int port() const { return port_; }

  // A client that asks for `path` and never reads (a 4 KiB receive buffer).
  int Stall(const std::string& path) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 4096;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    EXPECT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    stalled_.push_back(fd);
    return fd;
  }
  void CloseStalled() {
    for (int fd : stalled_) close(fd);
    stalled_.clear();
  }

  // Seconds until /ping is answered.
  double Ping() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    const Clock::time_point start = Clock::now();
    auto r = client.Get("/ping");
    EXPECT_TRUE(r && r->body == "pong");
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

 private:
  GatedServer http_;
  int port_ = 0;
  std::thread thread_;
  std::vector<int> stalled_;
};

TEST(RequestGate, ClientsThatDoNotReadAnswersUnderTheBoundHoldNoWorker) {
  Gate gate({.stall_timeout = std::chrono::seconds(20), .workers = 2});
  for (int i = 0; i < 6; ++i) gate.Stall("/small");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(gate.Ping(), 1.0) << "two workers, six clients not reading 600 KiB answers";
  gate.CloseStalled();
}

TEST(RequestGate, AWorkerWaitsForAClientThatDoesNotReadAtMostTheStallBudget) {
  Gate gate({.stall_timeout = std::chrono::milliseconds(1500), .workers = 2});
  for (int i = 0; i < 2; ++i) gate.Stall("/big");  // over the 1 MiB left to the gate
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double waited = gate.Ping();
  EXPECT_LT(waited, 3.0) << "the stall budget is 1.5 s";
  gate.CloseStalled();
}

// cpp-httplib's stop() does nothing before its loop runs: a Stop() at once
// after Start() must still end the server.
TEST(RequestGate, AServerStoppedAsSoonAsStartedStops) {
  Explorer ex = Td();
  for (int i = 0; i < 20; ++i) {
    ExplorerServer server(ex, ServeOptions{.port = 0});
    ASSERT_TRUE(server.Start());
    server.Stop();
    EXPECT_FALSE(server.running());
  }
}

}  // namespace
}  // namespace cookgraph::server
