// `cookgraph ask` and `report`'s LLM advice, end to end: the binary against
// tests/tools/fake_llm_server.py (fixture: tests/cli/ask_cli.h). Every case
// must end the documented way (an answer, a retry then an answer, or a
// one-line error with exit code 3) within its time bound, and the API key
// must appear in no output.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/ask_cli.h"

namespace cookgraph::testing {
namespace {

using nlohmann::json;

// ---- answers -------------------------------------------------------------------

TEST_F(AskCli, StreamsTheAnswerToStdoutAndUsageToStderr) {
  const AskRun run = Cookgraph("ask " + Quote(kExample) + " 'Why do frames drop?'", Endpoint("stream"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello, world!\n");
  EXPECT_NE(run.err.find("12 prompt + 4 completion = 16 tokens"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("finish: stop"), std::string::npos) << run.err;
  EXPECT_LT(run.seconds, 5);
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["headers"]["authorization"], std::string("Bearer ") + kKey);
  const json& body = requests[0]["body"];
  EXPECT_EQ(body["model"], "fake-model");
  EXPECT_EQ(body["stream"], true);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  const std::string user = body["messages"][1]["content"];
  EXPECT_NE(user.find("/project1/control/script_osc"), std::string::npos);
  EXPECT_TRUE(user.ends_with("Question: Why do frames drop?\n"));
}

TEST_F(AskCli, DryRunPrintsExactlyTheBodyThatIsSentAndSendsNothing) {
  const std::map<std::string, std::string> env = Endpoint("stream");
  const AskRun dry = Cookgraph("ask " + Quote(kExample) + " 'Why do frames drop?' --dry-run", env);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_TRUE(Requests("stream").empty());
  EXPECT_NE(dry.err.find("Authorization: Bearer *** (from OPENAI_API_KEY, masked)"),
            std::string::npos)
      << dry.err;
  EXPECT_NE(dry.err.find("POST " + server->Base("stream", Id()) + "/chat/completions"),
            std::string::npos);
  EXPECT_NE(dry.err.find("of the 20,000 budget"), std::string::npos) << dry.err;
  ASSERT_TRUE(json::accept(dry.out));
  const AskRun sent = Cookgraph("ask " + Quote(kExample) + " 'Why do frames drop?'", env);
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["raw"].get<std::string>() + "\n", dry.out);
}

TEST_F(AskCli, RetryAfterThenAnAnswer) {
  const AskRun run = Cookgraph("ask " + Quote(kExample) + " Q", Endpoint("retry-after"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello, world!\n");
  EXPECT_NE(run.err.find("2 attempts"), std::string::npos) << run.err;
  EXPECT_GE(run.seconds, 1.0);  // Retry-After: 1 was obeyed
  EXPECT_LT(run.seconds, 6);
  EXPECT_EQ(Requests("retry-after").size(), 2u);
}

TEST_F(AskCli, ServerErrorThenAnAnswer) {
  const AskRun run = Cookgraph("ask " + Quote(kExample) + " Q", Endpoint("flaky500"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "Hello, world!\n");
  EXPECT_LT(run.seconds, 6);
  EXPECT_EQ(Requests("flaky500").size(), 2u);
}

TEST_F(AskCli, OtherStreamsThatEndWell) {
  // Each gives the whole answer: line ends, reasoning kept out of the answer,
  // a server that refuses stream_options, one that answers a stream request
  // with one document, and --no-stream.
  for (const auto& [name, extra] : std::vector<std::pair<std::string, std::string>>{
           {"crlf", ""}, {"reasoning", ""}, {"stream-options-400", ""},
           {"json-for-stream", ""}, {"stream", "--no-stream"}}) {
    const AskRun run = Ask(name, "--persona minimalist " + extra);
    ASSERT_EQ(run.exit_code, 0) << name << ": " << run.err;
    EXPECT_EQ(run.out, name == "reasoning" ? "Answer.\n" : "Hello, world!\n") << name;
    EXPECT_LT(run.seconds, 6) << name;
  }
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["body"]["stream"], false);
  EXPECT_NE(requests[0]["body"]["messages"][0]["content"].get<std::string>().find(
                "Persona: minimalist."),
            std::string::npos);
}

// ---- failures: one line, exit code 3, in bounded time ---------------------------

TEST_F(AskCli, EndpointFailuresAreOneLineWithExitCodeThree) {
  struct Case {
    std::string name;
    std::string says;
    double bound_s;
  };
  const Case cases[] = {
      {"unauthorized", "HTTP 401", 5},
      {"html404", "HTTP 404", 5},
      {"string-error", "HTTP 400", 5},
      {"no-retry", "HTTP 503", 5},
      {"always500", "HTTP 500", 8},     // two retries with backoff
      {"cut", "stream ended", 5},       // content then a closed connection
      {"cut-early", "", 8},             // nothing delivered yet: retried, then fails
      {"midstream-error", "", 5},
      {"stall", "", 5},                 // idle timeout 1 s after content: no retry
      {"stall-head", "", 10},           // idle timeout before any byte: retried twice
  };
  for (const Case& c : cases) {
    const AskRun run = Ask(c.name);
    EXPECT_EQ(run.exit_code, 3) << c.name << ": " << run.err;
    EXPECT_EQ(ErrorLines(run.err), 1u) << c.name << ": " << run.err;
    EXPECT_NE(run.err.find(server->Base(c.name, Id())), std::string::npos)
        << c.name << ": the error names the endpoint: " << run.err;
    if (!c.says.empty()) {
      EXPECT_NE(run.err.find(c.says), std::string::npos) << c.name << run.err;
    }
    EXPECT_LT(run.seconds, c.bound_s) << c.name;
  }
}

TEST_F(AskCli, WhatStreamedBeforeAFailureStaysOnStdout) {
  const AskRun run = Ask("cut");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_FALSE(run.out.empty());
  EXPECT_TRUE(run.out.ends_with("\n"));
  EXPECT_TRUE(std::string("Hello, world!\n").starts_with(run.out.substr(0, run.out.size() - 1)))
      << run.out;
}

// The answer is input too: escape sequences in it (here an OSC 52 clipboard
// write, which the fake server echoes from the question) become '?', streamed
// or not; line breaks and tabs stay.
TEST_F(AskCli, EscapeSequencesInTheAnswerNeverReachTheTerminal) {
  const std::string question = "clip \x1b]52;c;ZXZpbA==\x07 done\tok \xc2\x9b" "2J";
  for (const std::string flags : {"", " --no-stream"}) {
    const AskRun run =
        Cookgraph("ask " + Quote(kExample) + " " + Quote(question) + flags, Endpoint("echo-question"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "clip ?]52;c;ZXZpbA==? done\tok ?2J\n") << flags;
  }
}

// ---- settings ------------------------------------------------------------------

TEST_F(AskCli, WithoutAnEndpointExitsTwoAndSaysHowToConfigureOne) {
  const AskRun run = Cookgraph("ask " + Quote(kExample) + " 'Why?' --model gpt-4o");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(ErrorLines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("no LLM endpoint configured"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("COOKGRAPH_BASE_URL"), std::string::npos);
  EXPECT_NE(run.err.find("`cookgraph report` works offline"), std::string::npos);
  EXPECT_TRUE(run.out.empty());
}

TEST_F(AskCli, FlagsBeatTheEnvironmentWhichBeatsTheFiles) {
  std::ofstream(home_ / "config/cookgraph/config.yaml").flush();
  std::filesystem::create_directories(home_ / "config/cookgraph");
  std::ofstream(home_ / "config/cookgraph/config.yaml")
      << "llm:\n  base_url: http://127.0.0.1:9/user/v1\n  model: user-model\n";
  const std::string args = "ask " + Quote(kExample) + " Q --dry-run";
  auto url_of = [](const AskRun& run) {
    const size_t at = run.err.find("POST ");
    return at == std::string::npos ? "" : run.err.substr(at + 5, run.err.find(';', at) - at - 5);
  };
  auto model_of = [](const AskRun& run) { return json::parse(run.out)["model"].get<std::string>(); };

  AskRun run = Cookgraph(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(url_of(run), "http://127.0.0.1:9/user/v1/chat/completions");
  EXPECT_EQ(model_of(run), "user-model");

  std::ofstream(work_ / "cookgraph.yaml")
      << "llm:\n  base_url: http://127.0.0.1:9/local/v1\n  model: local-model\n";
  run = Cookgraph(args);
  EXPECT_EQ(url_of(run), "http://127.0.0.1:9/local/v1/chat/completions");
  EXPECT_EQ(model_of(run), "local-model");

  run = Cookgraph(args, {{"OPENAI_BASE_URL", "http://127.0.0.1:9/env/v1"},
                         {"COOKGRAPH_MODEL", "env-model"}});
  EXPECT_EQ(url_of(run), "http://127.0.0.1:9/env/v1/chat/completions");
  EXPECT_EQ(model_of(run), "env-model");

  run = Cookgraph(args + " --base-url http://127.0.0.1:9/flag/v1 --model flag-model",
                  {{"COOKGRAPH_BASE_URL", "http://127.0.0.1:9/env/v1"},
                   {"COOKGRAPH_MODEL", "env-model"}});
  EXPECT_EQ(url_of(run), "http://127.0.0.1:9/flag/v1/chat/completions");
  EXPECT_EQ(model_of(run), "flag-model");
}

TEST_F(AskCli, UsageErrorsExitTwoWithOneLine) {
  const std::map<std::string, std::string> env = {{"COOKGRAPH_MODEL", "m"}};
  for (const std::string& args :
       {"ask " + Quote(kExample) + " Q --dry-run --budget-tokens 50",
        "ask " + Quote(kExample) + " Q --dry-run --persona pirate",
        "ask " + Quote(kExample) + " '' --dry-run",
        "ask " + Quote(kExample) + " Q --dry-run --tokenizer /nonexistent/o200k_base.tiktoken",
        std::string("ask /nonexistent.json Q --dry-run")}) {
    const AskRun run = Cookgraph(args, env);
    EXPECT_EQ(run.exit_code, 2) << args << ": " << run.err;
    EXPECT_EQ(SplitLines(run.err).size(), 1u + (run.err.find("--help") != std::string::npos))
        << args << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << args;
  }
  std::ofstream(work_ / "cookgraph.yaml") << "llm:\n  modle: x\n";
  const AskRun bad_config = Cookgraph("ask " + Quote(kExample) + " Q --dry-run", env);
  EXPECT_EQ(bad_config.exit_code, 2);
  EXPECT_NE(bad_config.err.find("cookgraph.yaml:2:3: llm: unknown key 'modle'"), std::string::npos)
      << bad_config.err;
}

// ---- sessions ------------------------------------------------------------------------

// Eight runs at once on one session file: each adds its turn to what the file
// holds when it saves (under the file's lock), so none is lost. Saving the
// session each run read at its start kept about two of the eight.
TEST_F(AskCli, ConcurrentRunsOnOneSessionFileLoseNoTurn) {
  constexpr int kRuns = 8;
  const std::map<std::string, std::string> env = Endpoint("echo-question");
  std::string command = "cd " + Quote(work_.path()) + " || exit 1; ";
  for (int i = 1; i <= kRuns; ++i) {
    const std::string n = std::to_string(i);
    command += "(" + CleanEnv(env) + " timeout -k 5 " + std::to_string(kHardLimitS) + " " +
               Quote(kBinary) + " ask " + Quote(kExample) + " 'question " + n +
               "' --session conc.json </dev/null >" + Quote(out_ / ("out" + n)) + " 2>" +
               Quote(out_ / ("err" + n)) + "; echo $? >" + Quote(out_ / ("rc" + n)) + ") & ";
  }
  command += "wait";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(command.c_str()), 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int i = 1; i <= kRuns; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(Slurp(out_ / ("rc" + n)), "0\n") << Slurp(out_ / ("err" + n));
    EXPECT_EQ(Slurp(out_ / ("out" + n)), "question " + n + "\n");
    EXPECT_EQ(ErrorLines(Slurp(out_ / ("err" + n))), 0u) << Slurp(out_ / ("err" + n));
  }
  const json session = json::parse(Slurp(work_ / "conc.json"));
  ASSERT_EQ(session["turns"].size(), static_cast<size_t>(kRuns)) << session.dump(1);
  std::set<std::string> questions;
  for (const json& turn : session["turns"]) {
    EXPECT_EQ(turn["answer"], turn["question"].get<std::string>() + "\n");
    questions.insert(turn["question"].get<std::string>());
  }
  EXPECT_EQ(questions.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(Requests("echo-question").size(), static_cast<size_t>(kRuns));
  // The lock file stays (docs/commands.md#conversations); no temporary file does.
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(work_.path())) {
    left.push_back(entry.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"conc.json", "conc.json.lock", "cookgraph.yaml"}));
  EXPECT_LT(seconds, 30);
}

// ---- report with advice ------------------------------------------------------------

TEST_F(AskCli, ReportHoldsTheAdviceWhenAnEndpointIsConfigured) {
  const std::string html = out_ / "report.html";
  const AskRun run = Cookgraph("report " + Quote(kExample) + " -o " + Quote(html) +
                                " --ask 'What first?'",
                            Endpoint("stream"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = Slurp(html);
  EXPECT_NE(text.find("<div class=\"advice\">\n<p>Hello, world!</p>"), std::string::npos);
  EXPECT_EQ(text.find(kKey), std::string::npos);
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(requests[0]["body"]["messages"][1]["content"].get<std::string>().ends_with(
      "Question: What first?\n"));
}

TEST_F(AskCli, ReportIsWrittenWithTheFailureWhenTheEndpointFails) {
  const std::string md = out_ / "report.md";
  const AskRun run = Cookgraph("report " + Quote(kExample) + " -o " + Quote(md), Endpoint("unauthorized"));
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(ErrorLines(run.err), 1u) << run.err;
  const std::string text = Slurp(md);
  EXPECT_NE(text.find("the endpoint failed"), std::string::npos);
  EXPECT_NE(text.find("HTTP 401"), std::string::npos);
  EXPECT_EQ(text.find(kKey), std::string::npos);
}

TEST_F(AskCli, ReportWithNoLlmNeverAsks) {
  const std::string md = out_ / "report.md";
  const AskRun run = Cookgraph("report " + Quote(kExample) + " -o " + Quote(md) + " --no-llm",
                            Endpoint("stream"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Requests("stream").empty());
  EXPECT_NE(Slurp(md).find("off (--no-llm)"), std::string::npos);
}

TEST_F(AskCli, ReportWithoutAnEndpointSaysHowToAddOne) {
  const std::string md = out_ / "report.md";
  const AskRun run = Cookgraph("report " + Quote(kExample) + " -o " + Quote(md));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(Slurp(md).find("no endpoint is configured. Set COOKGRAPH\\_BASE\\_URL"),
            std::string::npos)
      << Slurp(md);
}

}  // namespace
}  // namespace cookgraph::testing
