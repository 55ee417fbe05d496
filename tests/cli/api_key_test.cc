// The API key appears in no output, log, report or error message
// (docs/architecture.md#settings): every command and path that handles it, run with one distinctive key
// against tests/tools/fake_llm_server.py, and the key looked for, as it is,
// URL-encoded and base64-encoded (alone and as HTTP Basic "user:KEY"), in
// standard output, standard error and every file the run left in its
// folders: the current folder, HOME and XDG_CONFIG_HOME, the output folder
// and TMPDIR (pointed inside them), less the config files the test wrote.
// Where a request is sent, the server's log must show that it got the key:
// a run that never handled the key cannot pass by accident.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/fake_llm_server.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cookgraph::testing::FakeServerSuite;
using cookgraph::testing::Quote;
using cookgraph::testing::Slurp;
using cookgraph::testing::TempDir;

using cookgraph::testing::kBinary;
const std::string kExampleFile = COOKGRAPH_SOURCE_DIR "/examples/touchdesigner_feedback.json";

// '/', '+' and '=' make the URL-encoded and base64 forms differ from the key.
const std::string kKey = "sk-cg-KEY/7f3a+9e1b=2c4d";
const std::string kKeyUrlEncoded = "sk-cg-KEY%2F7f3a%2B9e1b%3D2c4d";
const std::map<std::string, std::string> kForms = {
    {"the key", kKey},
    {"the URL-encoded key", kKeyUrlEncoded},
    {"the base64 key", "c2stY2ctS0VZLzdmM2ErOWUxYj0yYzRk"},
    {"the base64 user:key", "dXNlcjpzay1jZy1LRVkvN2YzYSs5ZTFiPTJjNGQ"},
    {"the key's first half", kKey.substr(0, kKey.size() / 2)},
};

// What libcurl sends for a URL whose user part is "user:KEY".
const std::string kBasic = "Basic dXNlcjpzay1jZy1LRVkvN2YzYSs5ZTFiPTJjNGQ=";

// One run: its command line, the environment beyond the clean one, the config
// files it finds, and whether the key must reach the server.
struct KeyRun {
  std::string what;  // names the run in failures; also the server's request id
  std::string args;  // after "cookgraph"
  std::map<std::string, std::string> env;
  std::string local_config;  // ./cookgraph.yaml; "" = none
  std::string user_config;   // $XDG_CONFIG_HOME/cookgraph/config.yaml; "" = none
  int exit_code = 0;
  std::string sent_case;  // the fake server's case that must have got the key; "" = none
  std::string header = "authorization";  // where the key goes ("api-key" for Azure)
  std::string sent;  // that header's value; "" = "Bearer KEY" (authorization) or "KEY"
};

class ApiKey : public FakeServerSuite {
 protected:
  static std::string Base(const std::string& name, const std::string& id) {
    return server->Base(name, id);
  }

  // Runs `run` in fresh folders and checks every output for the key.
  void Check(const KeyRun& run) {
    SCOPED_TRACE(run.what);
    TempDir work, home, out;
    fs::create_directories(work / "tmp");
    std::set<std::string> written_by_test;
    if (!run.local_config.empty()) {
      std::ofstream(work / "cookgraph.yaml") << run.local_config;
      written_by_test.insert(work / "cookgraph.yaml");
    }
    fs::create_directories(home / "config/cookgraph");
    if (!run.user_config.empty()) {
      std::ofstream(home / "config/cookgraph/config.yaml") << run.user_config;
      written_by_test.insert(home / "config/cookgraph/config.yaml");
    }
    std::string command = "cd " + Quote(work.path()) +
                          " && env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u COOKGRAPH_BASE_URL "
                          "-u COOKGRAPH_MODEL -u http_proxy -u https_proxy -u HTTPS_PROXY "
                          "-u ALL_PROXY -u all_proxy NO_COLOR=1 no_proxy=127.0.0.1 "
                          "NO_PROXY=127.0.0.1 HOME=" +
                          Quote(home.path()) + " XDG_CONFIG_HOME=" + Quote(home / "config") +
                          " TMPDIR=" + Quote(work / "tmp");
    for (const auto& [name, value] : run.env) command += " " + name + "=" + Quote(value);
    std::string args = run.args;
    for (size_t at; (at = args.find("OUT/")) != std::string::npos;) args.replace(at, 4, out / "");
    command += " " + Quote(kBinary) + " " + args + " </dev/null >" + Quote(out / "stdout") + " 2>" +
               Quote(out / "stderr");
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const std::string err = Slurp(out / "stderr");
    EXPECT_EQ(code, run.exit_code) << err;

    size_t files = 0;
    for (const TempDir* dir : {&work, &home, &out}) {
      for (const auto& entry : fs::recursive_directory_iterator(dir->path())) {
        if (!entry.is_regular_file() || written_by_test.count(entry.path().string())) continue;
        ++files;
        const std::string text = Slurp(entry.path());
        for (const auto& [form, value] : kForms) {
          EXPECT_EQ(text.find(value), std::string::npos)
              << form << " is in " << entry.path() << ":\n"
              << text.substr(0, 2000);
        }
      }
    }
    EXPECT_GE(files, 2u) << "stdout and stderr at least";
    if (!run.sent_case.empty()) {
      const std::vector<nlohmann::json> requests = server->Requests(run.sent_case, run.what);
      ASSERT_FALSE(requests.empty()) << "nothing reached the server";
      const std::string expected = !run.sent.empty()               ? run.sent
                                   : run.header == "authorization" ? "Bearer " + kKey
                                                                   : kKey;
      EXPECT_EQ(requests.front()["headers"].value(run.header, ""), expected);
    }
  }
};

const std::string kAsk = "ask " + Quote(kExampleFile) + " 'Why do frames drop?' --model fake";

std::map<std::string, std::string> Env(const std::string& base) {
  return {{"COOKGRAPH_BASE_URL", base}, {"OPENAI_API_KEY", kKey}};
}

// Quick failures: one retry, short timeouts.
constexpr const char* kQuick =
    "llm:\n  max_retries: 1\n  idle_timeout_s: 2\n  connect_timeout_s: 2\n";

TEST_F(ApiKey, AskAndReportAnswersAndDryRunsNeverShowIt) {
  for (std::string flags : {"", " --no-stream"}) {
    const std::string id = "ask" + std::string(flags.empty() ? "-stream" : "-no-stream");
    Check(
        {.what = id, .args = kAsk + flags, .env = Env(Base("stream", id)), .sent_case = "stream"});
  }
  Check({.what = "dry-run", .args = kAsk + " --dry-run", .env = Env(Base("stream", "dry-run"))});
  for (std::string ext : {"html", "md"}) {
    const std::string id = "report-" + ext;
    Check({.what = id,
           .args = "report " + Quote(kExampleFile) + " -o OUT/report." + ext +
                   " --ask 'What first?' --model fake",
           .env = Env(Base("stream", id)),
           .sent_case = "stream"});
  }
}

TEST_F(ApiKey, AnEndpointThatEchoesItInTheAnswerIsRedacted) {
  for (std::string flags : {"", " --no-stream"}) {
    const std::string id = "echo" + std::string(flags.empty() ? "-stream" : "-no-stream");
    Check({.what = id,
           .args = kAsk + flags,
           .env = Env(Base("echo-key", id)),
           .sent_case = "echo-key"});
  }
  for (std::string ext : {"html", "md"}) {
    const std::string id = "echo-report-" + ext;
    Check({.what = id,
           .args = "report " + Quote(kExampleFile) + " -o OUT/report." + ext + " --model fake",
           .env = Env(Base("echo-key", id)),
           .sent_case = "echo-key"});
  }
}

TEST_F(ApiKey, FailingEndpointsNeverShowIt) {
  for (std::string name :
       {"unauthorized", "echo-key-401", "echo-key-cut", "always500", "cut", "html404",
        "midstream-error"}) {
    Check({.what = "fail-" + name,
           .args = kAsk,
           .env = Env(Base(name, "fail-" + name)),
           .local_config = kQuick,
           .exit_code = 3,
           .sent_case = name});
  }
  Check({.what = "report-401",
         .args = "report " + Quote(kExampleFile) + " -o OUT/report.md --model fake",
         .env = Env(Base("unauthorized", "report-401")),
         .exit_code = 3,
         .sent_case = "unauthorized"});
  Check({.what = "refused",
         .args = kAsk,
         .env = Env("http://127.0.0.1:1/v1"),
         .local_config = kQuick,
         .exit_code = 3});
  Check({.what = "bad-url", .args = kAsk, .env = Env("htp:/127.0.0.1/v1"), .exit_code = 3});
  Check({.what = "dead-proxy",
         .args = kAsk,
         .env = {{"COOKGRAPH_BASE_URL", Base("stream", "dead-proxy")},
                 {"OPENAI_API_KEY", kKey},
                 {"http_proxy", "http://127.0.0.1:1"},
                 {"no_proxy", ""},
                 {"NO_PROXY", ""}},
         .local_config = kQuick,
         .exit_code = 3});
}

TEST_F(ApiKey, AKeyInTheBaseUrlIsMaskedInEveryMessage) {
  // In the user part of the URL (URL-encoded, as a URL must hold it).
  const std::string port = std::to_string(server->port());
  Check({.what = "userinfo",
         .args = kAsk,
         .env = {{"COOKGRAPH_BASE_URL", "http://user:" + kKeyUrlEncoded + "@127.0.0.1:" + port +
                                            "/case/stream/userinfo/v1"}},
         .sent_case = "stream",
         .sent = kBasic});
  Check({.what = "userinfo-401",
         .args = kAsk,
         .env = {{"COOKGRAPH_BASE_URL", "http://user:" + kKeyUrlEncoded + "@127.0.0.1:" + port +
                                            "/case/html404/userinfo-401/v1"}},
         .exit_code = 3,
         .sent_case = "html404",
         .sent = kBasic});
  // In the query, raw and URL-encoded, for the answer, a failure and a dry run.
  for (std::string name : {"stream", "unauthorized"}) {
    for (std::string value : {kKey, kKeyUrlEncoded}) {
      const std::string id = "query-" + name + (value == kKey ? "-raw" : "-encoded");
      Check({.what = id,
             .args = kAsk,
             .env = Env(Base(name, id) + "?api-key=" + value),
             .exit_code = name == "stream" ? 0 : 3,
             .sent_case = name});
    }
  }
  Check({.what = "query-dry-run",
         .args = kAsk + " --dry-run",
         .env = {{"COOKGRAPH_BASE_URL", Base("stream", "q") + "?key=" + kKeyUrlEncoded}}});
}

TEST_F(ApiKey, EveryPlaceTheKeyComesFromAndAzure) {
  Check({.what = "local-config",
         .args = kAsk,
         .env = {{"COOKGRAPH_BASE_URL", Base("stream", "local-config")}},
         .local_config = "llm:\n  api_key: " + kKey + "\n",
         .sent_case = "stream"});
  Check({.what = "api-key-env",
         .args = kAsk,
         .env = {{"COOKGRAPH_BASE_URL", Base("unauthorized", "api-key-env")}, {"MY_LLM_KEY", kKey}},
         .local_config = "llm:\n  api_key_env: MY_LLM_KEY\n  max_retries: 0\n",
         .exit_code = 3,
         .sent_case = "unauthorized"});
  Check({.what = "user-config",
         .args = "report " + Quote(kExampleFile) + " -o OUT/r.html --model fake",
         .user_config = "llm:\n  base_url: " + Base("echo-key", "user-config") + "\n  api_key: '" +
                        kKey + "'\n",
         .sent_case = "echo-key"});
  const std::string azure =
      "llm:\n  azure: true\n  api_version: 2024-10-21\n  api_key: " + kKey + "\n  max_retries: 0\n";
  for (std::string name : {"echo-key", "echo-key-401"}) {
    Check({.what = "azure-" + name,
           .args = kAsk,
           .env = {{"COOKGRAPH_BASE_URL", Base(name, "azure-" + name)}},
           .local_config = azure,
           .exit_code = name == "echo-key" ? 0 : 3,
           .sent_case = name,
           .header = "api-key"});
  }
  Check({.what = "azure-dry-run", .args = kAsk + " --dry-run", .local_config = azure});
}

TEST_F(ApiKey, ConfigErrorsNearTheKeyNeverQuoteIt) {
  // A key that is not text, and an unknown key beside a good one: the errors
  // name the place, not the value.
  for (const std::string& config :
       {"llm:\n  api_key: [" + kKey + "]\n", "llm:\n  api_key: " + kKey + "\n  modle: x\n",
        "llm:\n  api_key: " + kKey + "\n  api_key_env: X\n",
        "llm:\n  api_key: \"" + kKey + "\\n\"\n"}) {
    const bool control = config.find("\\n") != std::string::npos;
    Check({.what = "config-" + std::to_string(config.size()),
           .args = kAsk,
           .env = {{"COOKGRAPH_BASE_URL", Base("stream", "config")}},
           .local_config = config,
           .exit_code = control ? 3 : 2});
  }
  // watch reads the same settings: its errors do not quote the key either.
  Check({.what = "watch",
         .args = "watch --duration 0",
         .local_config = "llm:\n  api_key: " + kKey + "\nwatch:\n  listen: udp://nowhere\n",
         .exit_code = 2});
}

}  // namespace
