#ifndef COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_
#define COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_

// Starts and stops tests/tools/fake_llm_server.py (a chat-completions server
// that misbehaves on request) for the client's and the CLI's tests, and reads
// the requests it logged.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace cookgraph::testing {

/// tests/tools/fake_llm_server.py as a child process, on a free loopback port.
class FakeServer {
 public:
  /// Serves HTTPS with a certificate and key (PEM files), as --tls-cert and
  /// --tls-key; call before Start.
  void UseTls(const std::string& cert, const std::string& key) {
    extra_args_ = {"--tls-cert", cert, "--tls-key", key};
    scheme_ = "https";
  }

  bool Start() {
    // One log per server: a test may run a second one (HTTPS) beside the first.
    static int servers = 0;
    log_ = ::testing::TempDir() + "fake_llm_server." + std::to_string(getpid()) + "." +
           std::to_string(++servers) + ".log";
    std::remove(log_.c_str());
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    // Debian's python3 where there is one, as the other tests use.
    const std::string python =
        access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    const std::string script = COOKGRAPH_SOURCE_DIR "/tests/tools/fake_llm_server.py";
    std::vector<std::string> args = {python, script, "--log", log_, "--lifetime", "280"};
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, python.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    if (rc != 0) return false;
    // The first line on its stdout is the port.
    std::string line;
    pollfd p{.fd = out[0], .events = POLLIN};
    while (line.find('\n') == std::string::npos && poll(&p, 1, 10000) > 0) {
      char buffer[64];
      const ssize_t n = read(out[0], buffer, sizeof buffer);
      if (n <= 0) break;
      line.append(buffer, n);
    }
    close(out[0]);
    port_ = std::atoi(line.c_str());
    return port_ > 0;
  }

  void Stop() {
    if (stdin_ >= 0) close(stdin_);  // the server exits when its stdin closes
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  /// Base URL of a case; `id` keeps its request count apart from other tests'.
  std::string Base(const std::string& name, const std::string& id) const {
    return scheme_ + "://127.0.0.1:" + std::to_string(port_) + "/case/" + name + "/" + id + "/v1";
  }

  /// The requests the server logged for a case and id, in order.
  std::vector<nlohmann::json> Requests(const std::string& name, const std::string& id) const {
    std::vector<nlohmann::json> requests;
    std::ifstream in(log_);
    const std::string prefix = "/case/" + name + "/" + id + "/";
    for (std::string line; std::getline(in, line);) {
      nlohmann::json record = nlohmann::json::parse(line);
      if (record["path"].get<std::string>().starts_with(prefix)) requests.push_back(record);
    }
    return requests;
  }

  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  std::string log_;
  std::string scheme_ = "http";
  std::vector<std::string> extra_args_;
};

/// Writes a self-signed certificate for 127.0.0.1 (subjectAltName IP:127.0.0.1,
/// valid two days) and its key as `dir`/cert.pem and `dir`/key.pem with the
/// openssl command; false when it failed.
inline bool MakeSelfSignedCertificate(const std::string& dir) {
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '" +
      dir + "/key.pem' -out '" + dir + "/cert.pem' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

/// A loopback port where nothing listens: bound once, then closed again.
inline int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
  socklen_t length = sizeof address;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

/// A test suite whose tests share one FakeServer, `server`: started before the
/// suite's first test (the suite fails if it cannot start) and stopped after
/// its last.
class FakeServerSuite : public ::testing::Test {
 protected:
  static inline FakeServer* server = nullptr;

  static void SetUpTestSuite() {
    server = new FakeServer;
    ASSERT_TRUE(server->Start()) << "could not start tests/tools/fake_llm_server.py";
  }
  static void TearDownTestSuite() {
    server->Stop();
    delete server;
    server = nullptr;
  }
};

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_
