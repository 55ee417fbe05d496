// `cookgraph watch` errors a user can make: each is one line naming the
// place, exit code 2. (Streaming itself is tested by tests/live.cmake.)

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "tests/cli/cli_run.h"
#include "tests/temp_dir.h"

namespace {

using cookgraph::testing::Lines;
using cookgraph::testing::Slurp;
using cookgraph::testing::TempDir;

struct WatchRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs `cookgraph watch ARGS` in `dir` with XDG_CONFIG_HOME=dir/config.
WatchRun Watch(const TempDir& dir, const std::string& args) {
  std::string command = "cd '" + dir.path() + "' && NO_COLOR=1 XDG_CONFIG_HOME='" + dir / "config" +
                        "' '" + COOKGRAPH_BINARY + "' watch " + args + " </dev/null >out 2>err";
  int status = std::system(command.c_str());
  WatchRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = Slurp(dir / "out");
  run.err = Slurp(dir / "err");
  return run;
}

// Sends frames 1..count to watch on 127.0.0.1:port as JSON-line datagrams, each
// with the given "nodes" object, `gap` apart.
void SendFrames(int port, int count, const std::string& nodes, std::chrono::milliseconds gap) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  for (int f = 1; f <= count; ++f) {
    const std::string d = "{\"frame\": " + std::to_string(f) + ", \"nodes\": " + nodes + "}";
    sendto(fd, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    std::this_thread::sleep_for(gap);
  }
  close(fd);
}

TEST(Watch, ABadListenUrlIsOneLine) {
  TempDir dir;
  WatchRun run = Watch(dir, "--listen tcp://127.0.0.1:9000 --duration 5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "cookgraph: error: --listen: only udp:// is supported: 'tcp://127.0.0.1:9000' "
            "(expected udp://HOST:PORT, e.g. udp://127.0.0.1:9000)\n");
  EXPECT_EQ(run.out, "");
}

TEST(Watch, NoListenSaysHowToGiveIt) {
  TempDir dir;
  WatchRun run = Watch(dir, "--duration 5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(Lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("--listen udp://HOST:PORT"), std::string::npos) << run.err;
}

TEST(Watch, APortInUseIsOneLineNamingIt) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));
  TempDir dir;
  WatchRun run = Watch(dir, "--listen udp://127.0.0.1:" + port + " --duration 5");
  close(fd);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "cookgraph: error: udp://127.0.0.1:" + port + ": port " + port +
                         " is in use (another program, or another cookgraph watch, listens on "
                         "it): pick another port\n");
}

TEST(Watch, AnUnknownConfigKeyIsAnErrorWithItsPlace) {
  TempDir dir;
  std::system(("mkdir -p '" + dir / "config/cookgraph" + "'").c_str());
  std::ofstream(dir / "config/cookgraph/config.yaml") << "watch:\n  window: 60\n  nodes_ms: 5\n";
  WatchRun run = Watch(dir, "--listen udp://127.0.0.1:0 --duration 5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(Lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find(dir / "config/cookgraph/config.yaml:3:3: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("unknown key 'nodes_ms'"), std::string::npos) << run.err;
}

TEST(Watch, ABadListenFromTheConfigFileNamesTheFile) {
  TempDir dir;
  std::system(("mkdir -p '" + dir / "config/cookgraph" + "'").c_str());
  std::ofstream(dir / "config/cookgraph/config.yaml") << "watch:\n  listen: udp://127.0.0.1\n";
  WatchRun run = Watch(dir, "--duration 5");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "cookgraph: error: " + dir / "config/cookgraph/config.yaml" +
                         ": watch.listen: no port: 'udp://127.0.0.1' (expected udp://HOST:PORT, "
                         "e.g. udp://127.0.0.1:9000)\n");
}

TEST(Watch, NothingReceivedEndsCleanlyAfterTheDuration) {
  TempDir dir;
  std::system(("mkdir -p '" + dir / "config/cookgraph" + "'").c_str());
  std::ofstream(dir / "config/cookgraph/config.yaml")
      << "watch:\n  window: 60\n  node_ms: 2.5\n  budget_ms: 8\n  quiet_frames: 4\n";
  WatchRun run =
      Watch(dir, "--listen udp://127.0.0.1:0 --duration 0.3 --format json --record r.json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["watch"]["frames"], 0);
  EXPECT_EQ(doc["watch"]["window"], 60);  // from the config file
  EXPECT_EQ(doc["watch"]["thresholds"]["node_ms"], 2.5);
  EXPECT_EQ(doc["watch"]["thresholds"]["budget_ms"], 8);
  EXPECT_EQ(doc["watch"]["thresholds"]["quiet_frames"], 4);
  EXPECT_EQ(doc["snapshots"][0]["frames"], 0);
  EXPECT_NE(run.err.find("cookgraph: warning: r.json: no frame was received: not written"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::ifstream(dir / "r.json").good());
  // A flag wins over the config file.
  WatchRun flagged =
      Watch(dir, "--listen udp://127.0.0.1:0 --duration 0.1 --format json --window 7");
  EXPECT_EQ(nlohmann::json::parse(flagged.out)["watch"]["window"], 7);
}

// A port free a moment ago (bound, read, closed), for a watch to listen on.
int FreePort() {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// True once a UDP socket is bound to 127.0.0.1:`port` (read from
// /proc/net/udp, so the check itself takes no port), false after 20 s.
bool WaitUntilBound(int port) {
  char wanted[32];
  std::snprintf(wanted, sizeof wanted, " 0100007F:%04X ", port);
  for (int i = 0; i < 1000; ++i) {
    std::ifstream table("/proc/net/udp");
    std::stringstream text;
    text << table.rdbuf();
    if (text.str().find(wanted) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Runs watch on a pseudo-terminal (util-linux `script`) while 300 frames
// arrive, about 200 a second; returns what the terminal showed. watch stops at
// the 300th frame (--frames), not at a deadline: on a loaded machine the
// sender's 5 ms sleeps stretch, and a fixed --duration ended the watch before
// the last frames came (a CI run saw 286 of 300). --duration is only a guard.
std::string WatchOnTerminal(const std::string& env) {
  TempDir dir;
  const int port = FreePort();
  std::string command =
      "cd '" + dir.path() + "' && " + env + " script -qfec \"'" + COOKGRAPH_BINARY +
      "' watch --listen udp://127.0.0.1:" + std::to_string(port) +
      " --frames 300 --duration 30 --refresh 0.25\" /dev/null >'" + dir / "out" + "' 2>&1";
  std::thread watch([&] { std::system(command.c_str()); });
  EXPECT_TRUE(WaitUntilBound(port)) << "watch did not bind udp port " << port;
  SendFrames(port, 300, "{\"/p/slow\": 2.5, \"/p/fast\": 0.25}", std::chrono::milliseconds(5));
  watch.join();
  return Slurp(dir / "out");
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Watch, OnATerminalTheTableIsRedrawnInPlace) {
  std::string screen = WatchOnTerminal("NO_COLOR=1 TERM=xterm");
  // Clear and home, then the table: at least every 0.25 s while frames came.
  EXPECT_GE(Count(screen, "\033[H\033[2J"), 4u) << screen;
  EXPECT_GE(Count(screen, "/p/slow"), 4u);
  EXPECT_NE(screen.find("300 frames (1-300)"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("\033[1m"), std::string::npos) << "NO_COLOR: no colour";
  EXPECT_EQ(screen.find("\033[3"), std::string::npos) << "NO_COLOR: no colour";
  std::string coloured = WatchOnTerminal("TERM=xterm");
  EXPECT_NE(coloured.find("\033[1m"), std::string::npos) << coloured;
}

TEST(Watch, NotATerminalGetsOnlyTheFinalTable) {
  TempDir dir;
  WatchRun run = Watch(dir, "--listen udp://127.0.0.1:0 --duration 0.6 --refresh 0.1");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("\033["), std::string::npos) << run.out;
  EXPECT_EQ(Count(run.out, "window 600 frames"), 1u) << run.out;  // one status line: no redraws
}

TEST(Watch, FramesWithoutNodesAreNotRecordedAsASnapshotThatCannotBeRead) {
  TempDir dir;
  const int port = FreePort();
  WatchRun run;
  std::thread watch([&] {
    run = Watch(dir, "--listen udp://127.0.0.1:" + std::to_string(port) +
                         " --frames 3 --duration 30 --record r.json");
  });
  EXPECT_TRUE(WaitUntilBound(port)) << "watch did not bind udp port " << port;
  SendFrames(port, 3, "{}", std::chrono::milliseconds(0));
  watch.join();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("cookgraph: warning: r.json: 3 frame(s) received, but no node in any "
                         "of them: not written"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(std::ifstream(dir / "r.json").good());
}

}  // namespace
