#ifndef COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_
#define COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_

// Starts and stops tests/tools/fake_llm_server.py (a chat-completions server
// that misbehaves on request) for the client's and the CLI's tests, and reads
// the requests it logged.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
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
  bool Start() {
    log_ = ::testing::TempDir() + "fake_llm_server." + std::to_string(getpid()) + ".log";
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
    return "http://127.0.0.1:" + std::to_string(port_) + "/case/" + name + "/" + id + "/v1";
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
};

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_FAKE_LLM_SERVER_H_
