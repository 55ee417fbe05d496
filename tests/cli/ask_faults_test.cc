// `cookgraph ask` against endpoints that fail below HTTP or never stop (the
// fixture: tests/cli/ask_cli.h). Each fault must end with exit code 3 and
// exactly one error line that names the URL and says what happened, within
// a stated bound; every run is killed after 60 s, so a hang fails the test.
// Timeouts and windows are short (from ./cookgraph.yaml, as a user sets
// them); the caps are the defaults. The times measured are printed.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/ask_cli.h"
#include "tests/sanitizers/sanitized.h"

namespace cookgraph::testing {
namespace {

class AskFaults : public AskCli {
 protected:
  // Reading 4 MiB of answer is work, not waiting: its time is the machine's
  // (6-9 s under ASan on this project's machines, 16 s on one that ran at
  // half speed). This bound tells a run that stopped at the cap from one
  // killed at kHardLimitS while the server streams on; the answer's size is
  // checked apart.
  static constexpr double kCapBoundS = kHardLimitS - 15;

  /// ./cookgraph.yaml: an idle timeout of 1 s, a connect timeout of
  /// `connect_s`, then `extra` lines of the llm: section.
  void Configure(const std::string& extra = "", double connect_s = 2) {
    std::ofstream(work_ / "cookgraph.yaml")
        << "llm:\n  idle_timeout_s: 1\n  connect_timeout_s: " << connect_s << "\n"
        << extra;
  }

  /// `ask` against `base_url` under ./cookgraph.yaml.
  AskRun AskAt(const std::string& base_url, const std::string& extra = "",
               std::map<std::string, std::string> env = {}) {
    env["COOKGRAPH_BASE_URL"] = base_url;
    env["OPENAI_API_KEY"] = kKey;
    env["COOKGRAPH_MODEL"] = "fake-model";
    // The estimator, not the rank files installed with cookgraph: these tests
    // bound the memory of the response's handling, and an o200k table (about
    // 18 MB, several times that under ASan) would be most of what they measure.
    const std::filesystem::path no_ranks = work_ / "no-rank-files";
    std::filesystem::create_directories(no_ranks);
    env.emplace("COOKGRAPH_DATA_DIR", no_ranks.string());
    // Under ASan, freed memory waits in its quarantine (256 MB by default)
    // and counts in the peak; these tests bound what the handling holds, so
    // the quarantine is left out (the other options as the suite sets them).
    if (cookgraph::testing::kAddressSanitizer) {
      const char* options = std::getenv("ASAN_OPTIONS");
      env["ASAN_OPTIONS"] = std::string(options ? options : "") + ":quarantine_size_mb=0";
    }
    return Cookgraph("ask " + Quote(kExample) + " 'Why do frames drop?' " + extra, env);
  }

  /// Exit code 3; standard error is the "asking" line and one error line,
  /// "cookgraph: error: endpoint: <url>/chat/completions: <says>..."; the
  /// run ended within `bound_s`.
  static void ExpectFailure(const AskRun& run, const std::string& base_url, const std::string& says,
                            double bound_s) {
    EXPECT_EQ(run.exit_code, 3) << run.err;
    const std::vector<std::string> lines = SplitLines(run.err);
    ASSERT_EQ(lines.size(), 2u) << run.err;
    EXPECT_TRUE(lines[0].starts_with("cookgraph: asking fake-model at ")) << run.err;
    EXPECT_TRUE(lines[1].starts_with("cookgraph: error: endpoint: " + base_url +
                                     "/chat/completions: " + says))
        << lines[1];
    EXPECT_LT(run.seconds, bound_s);
    std::printf("[ fault    ] %s: %.2f s, peak %ld KiB\n  %s\n",
                ::testing::UnitTest::GetInstance()->current_test_info()->name(), run.seconds,
                run.peak_kib, lines[1].c_str());
  }
};

TEST_F(AskFaults, ConnectionRefusedIsRetriedTwiceThenOneLine) {
  Configure();
  const std::string base = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/v1";
  const AskRun run = AskAt(base);
  ExpectFailure(run, base,
                "could not connect: connection refused (is the server running, and on this "
                "port?) (after 3 attempts)",
                8);
  EXPECT_TRUE(run.out.empty());
}

TEST_F(AskFaults, NameResolutionFailureIsBoundedByTheConnectTimeout) {
  // RFC 6761: nothing under .invalid resolves. Where the resolver hangs
  // (offline), the connect timeout of 1 s still ends each attempt.
  Configure("", /*connect_s=*/1);
  const std::string base = "http://cookgraph-test.invalid/v1";
  const AskRun run = AskAt(base, "", {{"no_proxy", "*"}, {"NO_PROXY", "*"}});
  ExpectFailure(run, base, "could not resolve the host name cookgraph-test.invalid ", 10);
  EXPECT_TRUE(run.err.ends_with("(after 3 attempts)\n")) << run.err;
}

TEST_F(AskFaults, SelfSignedTlsIsRefusedAndWorksWithItsCaBundle) {
  ASSERT_TRUE(MakeSelfSignedCertificate(home_.path())) << "the openssl command failed";
  FakeServer tls;
  tls.UseTls(home_ / "cert.pem", home_ / "key.pem");
  ASSERT_TRUE(tls.Start());
  const std::string base = tls.Base("stream", Id());
  Configure();
  const AskRun refused = AskAt(base);
  ExpectFailure(refused, base,
                "TLS: the server's certificate is not trusted (SSL certificate problem: "
                "self-signed certificate); if a private CA signed it, set llm.ca_bundle to that "
                "CA's PEM file",
                5);
  EXPECT_EQ(refused.err.find("attempts"), std::string::npos);  // not retried

  Configure("  ca_bundle: " + home_ / "cert.pem" + "\n");
  const AskRun trusted = AskAt(base);
  EXPECT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_EQ(trusted.out, "Hello, world!\n");
  tls.Stop();
}

TEST_F(AskFaults, ResetMidStreamKeepsThePartialAnswer) {
  Configure();
  const std::string base = server->Base("reset", Id());
  const AskRun run = AskAt(base);
  ExpectFailure(run, base, "stream ended before [DONE]: the server reset the connection", 5);
  EXPECT_EQ(run.out, "Hel\n");  // as after a cut: what was shown stays, on its own line
  EXPECT_EQ(server->Requests("reset", Id()).size(), 1u);
}

TEST_F(AskFaults, SlowDripBelowTheRateFloorIsRetriedThenOneLine) {
  // A byte every 0.3 s: the idle timeout of 1 s never fires.
  Configure("  rate_window_s: 0.5\n");
  const std::string base = server->Base("drip", Id());
  const AskRun run = AskAt(base);
  ExpectFailure(run, base, "the response is trickling in at ", 10);
  EXPECT_NE(run.err.find("bytes/s, below the floor of 16 bytes/s over 0.5 s "
                         "(llm.min_bytes_per_s, llm.rate_window_s) (after 3 attempts)"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST_F(AskFaults, EndlessStreamStopsAtTheDefaultAnswerCap) {
  Configure();
  const std::string base = server->Base("endless", Id());
  const AskRun run = AskAt(base);
  ExpectFailure(run, base,
                "the answer is longer than 4 MiB (llm.max_answer_mib); stopped reading it",
                kCapBoundS);
  EXPECT_LE(run.out.size(), (size_t{4} << 20) + 1);  // the partial answer and a newline
  EXPECT_GT(run.out.size(), (size_t{4} << 20) - 2048);
  if (run.peak_kib > 0) {
    EXPECT_LT(run.peak_kib, 200 * 1024);
  }
}

TEST_F(AskFaults, TenMegabyteResponseIsRefusedStreamedOrNot) {
  Configure();
  const std::string base = server->Base("big", Id());
  for (const std::string flags : {"", "--no-stream"}) {
    SCOPED_TRACE(flags);
    const AskRun run = AskAt(base, flags);
    ExpectFailure(run, base,
                  "the answer is longer than 4 MiB (llm.max_answer_mib); stopped reading it",
                  kCapBoundS);
    EXPECT_LE(run.out.size(), (size_t{4} << 20) + 1);
    if (flags == "--no-stream") {
      EXPECT_TRUE(run.out.empty());
    }
    if (run.peak_kib > 0) {
      EXPECT_LT(run.peak_kib, 200 * 1024);
    }
  }
}

TEST_F(AskFaults, InvalidUtf8IsNamedAndThePartialAnswerStays) {
  Configure();
  const std::string base = server->Base("bad-utf8", Id());
  const AskRun streamed = AskAt(base);
  ExpectFailure(streamed, base, "the server sent invalid UTF-8 in stream event 4, at byte ", 5);
  EXPECT_TRUE(streamed.err.ends_with(" of its data (0xFF)\n")) << streamed.err;
  EXPECT_EQ(streamed.out, "Hello, wor\n");
  const AskRun whole = AskAt(base, "--no-stream");
  ExpectFailure(whole, base, "the server sent invalid UTF-8 in the answer, at byte ", 5);
  EXPECT_TRUE(whole.out.empty());
}

TEST_F(AskFaults, ReportIsWrittenWithTheFailureWhenNothingListens) {
  Configure();
  const std::string md = out_ / "report.md";
  const std::string base = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/v1";
  const AskRun run = Cookgraph(
      "report " + Quote(kExample) + " -o " + Quote(md) + " --ask Q",
      {{"COOKGRAPH_BASE_URL", base}, {"OPENAI_API_KEY", kKey}, {"COOKGRAPH_MODEL", "fake-model"}});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(ErrorLines(run.err), 1u) << run.err;
  EXPECT_LT(run.seconds, 8);
  const std::string text = Slurp(md);
  EXPECT_NE(text.find("the endpoint failed"), std::string::npos) << text;
  EXPECT_NE(text.find("connection refused"), std::string::npos) << text;
}

}  // namespace
}  // namespace cookgraph::testing
