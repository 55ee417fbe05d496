#ifndef COOKGRAPH_TESTS_CLI_ASK_CLI_H_
#define COOKGRAPH_TESTS_CLI_ASK_CLI_H_

// The fixture of the end-to-end tests of `cookgraph ask` and `report`'s LLM
// advice: the binary run against tests/tools/fake_llm_server.py.
//
// Each run starts from a clean environment: the LLM variables unset, HOME and
// XDG_CONFIG_HOME in a fresh folder, the current folder a fresh one, so the
// settings are exactly what the test gives.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/fake_llm_server.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph::testing {

inline const std::string kExample = kSource + "/examples/touchdesigner_feedback.json";
inline constexpr const char* kKey = "sk-test-CLI-SECRET-9876543210fedcba";

/// The lines of `text`, without their '\\n'.
inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline size_t ErrorLines(const std::string& err) {
  size_t n = 0;
  for (const std::string& line : SplitLines(err)) n += line.starts_with("cookgraph: error: ");
  return n;
}

struct AskRun {
  int exit_code = -1;
  std::string out, err;
  double seconds = 0;
  long peak_kib = 0;  // peak resident memory; 0 = not measured
};

class AskCli : public FakeServerSuite {
 protected:
  static constexpr int kHardLimitS = 60;  // seconds any one run may take

  void SetUp() override {
    std::filesystem::create_directories(home_ / "config");
    std::filesystem::create_directories(work_.path());
  }

  // The `env ...` that runs a command with only `env` set (and HOME, no proxy).
  std::string CleanEnv(const std::map<std::string, std::string>& env) const {
    std::string command = "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u COOKGRAPH_BASE_URL "
                          "-u COOKGRAPH_MODEL -u TIKTOKEN_CACHE_DIR -u DATA_GYM_CACHE_DIR "
                          "NO_COLOR=1 no_proxy=127.0.0.1 NO_PROXY=127.0.0.1 HOME=" +
                          Quote(home_.path()) + " XDG_CONFIG_HOME=" + Quote(home_ / "config");
    for (const auto& [name, value] : env) command += " " + name + "=" + Quote(value);
    return command;
  }

  // Runs cookgraph ARGS in the test's own folder with only `env` set.
  AskRun Cookgraph(const std::string& args, const std::map<std::string, std::string>& env = {}) {
    std::string command = "cd " + Quote(work_.path()) + " && " + CleanEnv(env);
    // The run's peak memory, where GNU time is installed (scripts/install-deps.sh).
    const bool timed = access("/usr/bin/time", X_OK) == 0;
    if (timed) command += " /usr/bin/time -q -f %M -o " + Quote(out_ / "peak");
    // A hung run is killed (exit code 124): no test waits on it for ever.
    command += " timeout -k 5 " + std::to_string(kHardLimitS) + " " + Quote(kBinary) + " " + args +
               " </dev/null >" + Quote(out_ / "out") + " 2>" + Quote(out_ / "err");
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    AskRun run;
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = Slurp(out_ / "out");
    run.err = Slurp(out_ / "err");
    if (timed) {
      const std::vector<std::string> peak = SplitLines(Slurp(out_ / "peak"));
      if (!peak.empty()) run.peak_kib = std::atol(peak.back().c_str());
    }
    // Whatever happened, the key is in no output.
    EXPECT_EQ(run.out.find(kKey), std::string::npos) << args;
    EXPECT_EQ(run.err.find(kKey), std::string::npos) << args;
    return run;
  }

  // The environment of a configured endpoint for `name`, idle timeout 1 s
  // (from ./cookgraph.yaml, as a user would set it).
  std::map<std::string, std::string> Endpoint(const std::string& name) {
    std::ofstream(work_ / "cookgraph.yaml")
        << "llm:\n  idle_timeout_s: 1\n  connect_timeout_s: 2\n";
    return {{"COOKGRAPH_BASE_URL", server->Base(name, Id())},
            {"OPENAI_API_KEY", kKey},
            {"COOKGRAPH_MODEL", "fake-model"}};
  }

  AskRun Ask(const std::string& name, const std::string& extra = "") {
    return Cookgraph("ask " + Quote(kExample) + " 'Why do frames drop?' " + extra, Endpoint(name));
  }

  std::vector<nlohmann::json> Requests(const std::string& name) const {
    return server->Requests(name, Id());
  }
  static std::string Id() {
    return ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  TempDir home_, work_, out_;
};

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_CLI_ASK_CLI_H_
