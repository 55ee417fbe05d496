// The advisor's settings: which source wins, the config file's keys and
// errors, and the tokenizer they choose.

#include "advisor/settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

using cookgraph::testing::TempDir;

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

Getenv FakeEnvironment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

// Runs `body` with the current folder set to `dir`.
template <typename F>
void InFolder(const std::string& dir, F body) {
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  body();
  std::filesystem::current_path(before);
}

TEST(Settings, FlagsThenEnvironmentThenLocalFileThenUserFile) {
  TempDir dir;
  Write(dir / "xdg/cookgraph/config.yaml",
        "llm:\n  base_url: http://user/v1\n  model: user-model\n  api_key: user-key\n"
        "  temperature: 0.5\nadvisor:\n  persona: explainer\n  budget_tokens: 5000\n");
  Write(dir / "work/cookgraph.yaml", "llm:\n  base_url: http://local/v1\n  model: local-model\n");
  InFolder(dir / "work", [&] {
    // The user's file alone.
    Result<AdvisorSettings> s = LoadSettings(FakeEnvironment({{"XDG_CONFIG_HOME", dir / "xdg"}}));
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(s->endpoint.base_url, "http://local/v1");  // ./cookgraph.yaml beats it
    EXPECT_EQ(s->model, "local-model");
    EXPECT_EQ(s->model_from, "./cookgraph.yaml");
    EXPECT_EQ(s->endpoint.api_key, "user-key");  // only the user's file gives one
    EXPECT_EQ(s->temperature, 0.5);
    EXPECT_EQ(s->persona, Persona::kExplainer);
    EXPECT_EQ(s->budget_tokens, 5000u);
    EXPECT_EQ(s->files_read.size(), 2u);

    // The environment beats both files; COOKGRAPH_BASE_URL beats OPENAI_BASE_URL.
    s = LoadSettings(FakeEnvironment({{"XDG_CONFIG_HOME", dir / "xdg"},
                                      {"OPENAI_BASE_URL", "http://openai-env/v1"},
                                      {"COOKGRAPH_BASE_URL", "http://cookgraph-env/v1"},
                                      {"OPENAI_API_KEY", "env-key"},
                                      {"COOKGRAPH_MODEL", "env-model"}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "http://cookgraph-env/v1");
    EXPECT_EQ(s->base_url_from, "COOKGRAPH_BASE_URL");
    EXPECT_EQ(s->endpoint.api_key, "env-key");
    EXPECT_EQ(s->model, "env-model");

    s = LoadSettings(
        FakeEnvironment({{"OPENAI_BASE_URL", "http://openai-env/v1"}, {"HOME", dir / "nowhere"}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "http://openai-env/v1");
    EXPECT_EQ(s->model, "local-model");
    EXPECT_TRUE(s->endpoint.api_key.empty());
  });
}

TEST(Settings, OverridesGoOverEverySourceAndAnUnknownPersonaIsAnError) {
  TempDir dir;
  Write(dir / "work/cookgraph.yaml", "llm:\n  model: local-model\n  stream: true\n");
  InFolder(dir / "work", [&] {
    const Getenv env =
        FakeEnvironment({{"HOME", dir / "nowhere"}, {"COOKGRAPH_BASE_URL", "http://env/v1"}});
    Result<AdvisorSettings> s = ResolveSettings({}, env);
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(s->model, "local-model");
    EXPECT_EQ(s->endpoint.base_url, "http://env/v1");
    s = ResolveSettings({.persona = "minimalist",
                         .model = "flag-model",
                         .budget_tokens = 1234,
                         .base_url = "http://flag/v1",
                         .no_stream = true,
                         .model_from = "model="},
                        env);
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(s->persona, Persona::kMinimalist);
    EXPECT_EQ(s->model, "flag-model");
    EXPECT_EQ(s->model_from, "model=");
    EXPECT_EQ(s->budget_tokens, 1234u);
    EXPECT_EQ(s->endpoint.base_url, "http://flag/v1");
    EXPECT_EQ(s->base_url_from, "--base-url");
    EXPECT_FALSE(s->stream);
    s = ResolveSettings({.persona = "poet"}, env);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().Format(),
              "persona: expected debugger|explainer|minimalist|gpu-optimizer, got 'poet'");
  });
}

TEST(Settings, UserFileFallsBackToHomeDotConfig) {
  EXPECT_EQ(UserConfigPath(FakeEnvironment({{"HOME", "/h"}})), "/h/.config/cookgraph/config.yaml");
  EXPECT_EQ(UserConfigPath(FakeEnvironment({{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}})),
            "/x/cookgraph/config.yaml");
  EXPECT_EQ(UserConfigPath(FakeEnvironment({})), "");
}

TEST(Settings, EveryKeyOfTheConfigFileIsRead) {
  TempDir dir;
  setenv("COOKGRAPH_TEST_KEY_VAR", "key-from-var", 1);
  Write(dir / "c/config.yaml",
        "llm:\n"
        "  base_url: https://example.test/openai\n"
        "  model: gpt-4\n"
        "  api_key_env: COOKGRAPH_TEST_KEY_VAR\n"
        "  azure: yes\n"
        "  api_version: 2024-10-21\n"
        "  temperature: 0\n"
        "  max_output_tokens: 800\n"
        "  max_tokens_field: max_tokens\n"
        "  stream: false\n"
        "  connect_timeout_s: 2.5\n"
        "  idle_timeout_s: 9\n"
        "  max_retries: 0\n"
        "  ca_bundle: certs/ca.pem\n"
        "  min_bytes_per_s: 100\n"
        "  rate_window_s: 2.5\n"
        "  max_answer_mib: 0.5\n"
        "  max_response_mib: 8\n"
        "advisor:\n"
        "  persona: gpu-optimizer\n"
        "  budget_tokens: 1234\n"
        "  tokenizer: ranks/cl100k_base.tiktoken\n"
        "  encoding: cl100k_base\n"
        "  pack: /abs/pack.yaml\n");
  AdvisorSettings s;
  Status applied = ApplyConfigFile(dir / "c/config.yaml", s);
  unsetenv("COOKGRAPH_TEST_KEY_VAR");
  ASSERT_TRUE(applied) << applied.error().Format();
  EXPECT_EQ(s.endpoint.base_url, "https://example.test/openai");
  EXPECT_EQ(s.model, "gpt-4");
  EXPECT_EQ(s.endpoint.api_key, "key-from-var");
  EXPECT_NE(s.api_key_from.find("$COOKGRAPH_TEST_KEY_VAR"), std::string::npos);
  EXPECT_TRUE(s.endpoint.azure);
  EXPECT_EQ(s.endpoint.api_version, "2024-10-21");
  EXPECT_EQ(s.temperature, 0.0);
  EXPECT_EQ(s.max_output_tokens, 800);
  EXPECT_EQ(s.max_tokens_field, "max_tokens");
  EXPECT_FALSE(s.stream);
  EXPECT_EQ(s.endpoint.connect_timeout_s, 2.5);
  EXPECT_EQ(s.endpoint.idle_timeout_s, 9);
  EXPECT_EQ(s.endpoint.max_retries, 0);
  EXPECT_EQ(s.endpoint.ca_bundle, dir / "c/certs/ca.pem");  // relative to the file
  EXPECT_EQ(s.endpoint.min_bytes_per_s, 100);
  EXPECT_EQ(s.endpoint.rate_window_s, 2.5);
  EXPECT_EQ(s.endpoint.max_answer_bytes, 512u * 1024);
  EXPECT_EQ(s.endpoint.max_response_bytes, 8u << 20);
  EXPECT_EQ(s.persona, Persona::kGpuOptimizer);
  EXPECT_EQ(s.budget_tokens, 1234u);
  EXPECT_EQ(s.tokenizer, dir / "c/ranks/cl100k_base.tiktoken");
  EXPECT_EQ(s.encoding, Encoding::kCl100k);
  EXPECT_EQ(s.pack, "/abs/pack.yaml");
}

TEST(Settings, ABadFileIsAnErrorWithItsPlaceAndChangesNothing) {
  TempDir dir;
  struct Case {
    std::string text;
    int64_t line;
    std::string message;
  };
  const Case cases[] = {
      {"llm:\n  base_url: http://x/v1\n  modle: gpt-4o\n", 3, "unknown key 'modle'"},
      {"llm:\n  temperature: hot\n", 2, "expected a number"},
      {"llm:\n  temperature: 3\n", 2, "expected a number from 0 to 2"},
      {"llm:\n  max_retries: 1.5\n", 2, "expected a whole number"},
      {"llm:\n  max_answer_mib: 0\n", 2, "expected a number from 0.001 to 4096"},
      {"llm:\n  rate_window_s: 0\n", 2, "expected a number from 0.1 to 3600"},
      {"llm:\n  min_bytes_per_s: -1\n", 2, "expected a number from 0 to 1e+09"},
      {"advisor:\n  persona: pirate\n", 2, "unknown persona 'pirate'"},
      {"advisor:\n  encoding: p50k_base\n", 2, "expected o200k_base or cl100k_base"},
      {"llm:\n  max_tokens_field: tokens\n", 2, "expected max_completion_tokens or max_tokens"},
      {"llm:\n  api_key_env: COOKGRAPH_TEST_UNSET_VAR\n", 2, "is not set"},
      {"llm: [1, 2\n", 2, "bad YAML"},
      {"- a list\n", 1, "a cookgraph config file is a YAML map"},
      {"ask:\n  persona: debugger\n", 1, "unknown key 'ask'"},
  };
  for (const Case& c : cases) {
    Write(dir / "bad.yaml", c.text);
    AdvisorSettings s;
    s.model = "unchanged";
    Status status = ApplyConfigFile(dir / "bad.yaml", s);
    ASSERT_FALSE(status) << c.text;
    EXPECT_EQ(status.error().file, dir / "bad.yaml");
    EXPECT_EQ(status.error().line, c.line) << c.text << status.error().Format();
    EXPECT_NE(status.error().Format().find(c.message), std::string::npos)
        << c.text << " gave " << status.error().Format();
    EXPECT_EQ(s.model, "unchanged");
  }
}

TEST(Settings, WatchSectionGivesTheLiveThresholds) {
  TempDir dir;
  Write(dir / "watch.yaml",
        "watch:\n"
        "  listen: udp://0.0.0.0:9100\n"
        "  window: 1200\n"
        "  node_ms: 4.5\n"
        "  budget_ms: 8.333\n"
        "  quiet_frames: 12\n");
  AdvisorSettings s;
  Status applied = ApplyConfigFile(dir / "watch.yaml", s);
  ASSERT_TRUE(applied) << applied.error().Format();
  EXPECT_EQ(s.watch.listen, "udp://0.0.0.0:9100");
  EXPECT_EQ(s.watch.window, 1200u);
  EXPECT_EQ(s.watch.node_ms, 4.5);
  EXPECT_EQ(s.watch.budget_ms, 8.333);
  EXPECT_EQ(s.watch.quiet_frames, 12u);
  AdvisorSettings none;
  EXPECT_FALSE(none.watch.node_ms);  // no node alerts unless asked for
  EXPECT_FALSE(none.watch.window);
}

TEST(Settings, ABadWatchKeyIsAnErrorWithItsPlace) {
  TempDir dir;
  struct Case {
    std::string text;
    int64_t line;
    std::string message;
  };
  const Case cases[] = {
      {"watch:\n  node_msec: 5\n", 2, "unknown key 'node_msec'"},
      {"watch:\n  window: 0\n", 2, "expected a number from 1 to"},
      {"watch:\n  window: 10.5\n", 2, "expected a whole number"},
      {"watch:\n  node_ms: -1\n", 2, "expected a number from 0 to"},
      {"watch:\n  budget_ms: fast\n", 2, "expected a number"},
      {"watch:\n  listen: tcp://127.0.0.1:9000\n", 2, "expected udp://HOST:PORT"},
      {"watch: 5\n", 1, "expected a map"},
  };
  for (const Case& c : cases) {
    Write(dir / "bad.yaml", c.text);
    AdvisorSettings s;
    Status status = ApplyConfigFile(dir / "bad.yaml", s);
    ASSERT_FALSE(status) << c.text;
    EXPECT_EQ(status.error().line, c.line) << c.text << status.error().Format();
    EXPECT_NE(status.error().Format().find(c.message), std::string::npos)
        << c.text << " gave " << status.error().Format();
    EXPECT_FALSE(s.watch.window);
  }
}

TEST(Settings, AMissingFileChangesNothingAndAnEmptyOneIsFine) {
  TempDir dir;
  AdvisorSettings s;
  EXPECT_TRUE(ApplyConfigFile(dir / "none.yaml", s));
  EXPECT_TRUE(s.files_read.empty());
  Write(dir / "empty.yaml", "");
  EXPECT_TRUE(ApplyConfigFile(dir / "empty.yaml", s));
  EXPECT_EQ(s.files_read.size(), 1u);
}

TEST(Settings, EncodingFollowsTheModel) {
  EXPECT_EQ(EncodingForModel("gpt-4o"), Encoding::kO200k);
  EXPECT_EQ(EncodingForModel("gpt-4o-mini"), Encoding::kO200k);
  EXPECT_EQ(EncodingForModel("gpt-4.1"), Encoding::kO200k);
  EXPECT_EQ(EncodingForModel("o3-mini"), Encoding::kO200k);
  EXPECT_EQ(EncodingForModel("gpt-4"), Encoding::kCl100k);
  EXPECT_EQ(EncodingForModel("gpt-4-turbo"), Encoding::kCl100k);
  EXPECT_EQ(EncodingForModel("openai/gpt-3.5-turbo"), Encoding::kCl100k);
  EXPECT_EQ(EncodingForModel("llama3.1"), Encoding::kO200k);
}

TEST(Settings, TokenizerFallsBackToTheEstimatorButANamedFileMustExist) {
  TempDir dir;
  AdvisorSettings s;
  s.model = "gpt-4o";
  // An empty cache, and an empty folder for the files installed with cookgraph.
  setenv("TIKTOKEN_CACHE_DIR", dir.path().c_str(), 1);
  setenv("COOKGRAPH_DATA_DIR", dir.path().c_str(), 1);
  Result<std::unique_ptr<TokenCounter>> counter = OpenTokenCounter(s);
  ASSERT_TRUE(counter);
  EXPECT_FALSE((*counter)->exact());
  s.tokenizer = dir / "missing.tiktoken";
  counter = OpenTokenCounter(s);
  unsetenv("TIKTOKEN_CACHE_DIR");
  unsetenv("COOKGRAPH_DATA_DIR");
  ASSERT_FALSE(counter);
  EXPECT_NE(counter.error().Format().find("missing.tiktoken"), std::string::npos);
}

TEST(Settings, TheRankFilesInstalledWithCookgraphCountExactlyByModel) {
  const std::filesystem::path bundled =
      std::filesystem::path(COOKGRAPH_BINARY).parent_path().parent_path() /
      "share/cookgraph/tiktoken";
  if (!std::filesystem::exists(bundled / "o200k_base.tiktoken")) {
    GTEST_SKIP() << "no rank files in " << bundled << " (built with -DCOOKGRAPH_BUNDLE_RANKS=OFF?)";
  }
  TempDir dir;
  setenv("TIKTOKEN_CACHE_DIR", dir.path().c_str(), 1);  // an empty cache
  unsetenv("COOKGRAPH_DATA_DIR");
  AdvisorSettings s;  // no model: the encoding of the default one
  struct Case {
    std::string model;
    std::optional<Encoding> encoding;
    std::string described;
  };
  for (const Case& c : {Case{"", std::nullopt, "o200k_base (installed with cookgraph)"},
                        Case{"gpt-4o-mini", std::nullopt, "o200k_base (installed with cookgraph)"},
                        Case{"gpt-4", std::nullopt, "cl100k_base (installed with cookgraph)"},
                        Case{"gpt-4o", Encoding::kCl100k, "cl100k_base (installed with cookgraph)"},
                        Case{"llama3.1", std::nullopt, "o200k_base (installed with cookgraph)"}}) {
    s.model = c.model;
    s.encoding = c.encoding;
    Result<std::unique_ptr<TokenCounter>> counter = OpenTokenCounter(s);
    ASSERT_TRUE(counter) << counter.error().Format();
    EXPECT_TRUE((*counter)->exact()) << c.model;
    EXPECT_EQ((*counter)->Describe(), c.described) << c.model;
    EXPECT_EQ((*counter)->Count("hello world"), 2u) << c.model;  // both encodings
  }
  unsetenv("TIKTOKEN_CACHE_DIR");
}

TEST(Settings, ARankFileIsReadOnceWhileItStaysTheSame) {
  const std::filesystem::path bundled =
      std::filesystem::path(COOKGRAPH_BINARY).parent_path().parent_path() /
      "share/cookgraph/tiktoken";
  if (!std::filesystem::exists(bundled / "cl100k_base.tiktoken")) {
    GTEST_SKIP() << "no rank files in " << bundled << " (built with -DCOOKGRAPH_BUNDLE_RANKS=OFF?)";
  }
  TempDir dir;
  const std::string copy = dir / "cl100k_base.tiktoken";
  std::filesystem::copy_file(bundled / "cl100k_base.tiktoken", copy);
  AdvisorSettings s;
  s.tokenizer = copy;
  Result<std::unique_ptr<TokenCounter>> first = OpenTokenCounter(s);
  ASSERT_TRUE(first) << first.error().Format();
  Result<std::unique_ptr<TokenCounter>> second = OpenTokenCounter(s);
  ASSERT_TRUE(second) << second.error().Format();
  EXPECT_EQ((*second)->Describe(), "cl100k_base from " + copy);
  EXPECT_EQ((*second)->Count("hello world"), 2u);
  first->reset();  // the other stays usable
  EXPECT_EQ((*second)->Count("hello world"), 2u);
  // Another file at the same path is read again, and here refused.
  Write(copy, "IQ== 0\n");
  Result<std::unique_ptr<TokenCounter>> changed = OpenTokenCounter(s);
  ASSERT_FALSE(changed);
  EXPECT_NE(changed.error().Format().find("has 1 tokens where cl100k_base has 100256"),
            std::string::npos)
      << changed.error().Format();
  EXPECT_EQ((*second)->Count("hello world"), 2u);
}

TEST(Settings, AnApiKeyWithoutABaseUrlIsOpenAisEndpoint) {
  TempDir dir;
  std::filesystem::create_directories(dir / "work");
  InFolder(dir / "work", [&] {
    std::map<std::string, std::string> vars = {{"HOME", dir / "nowhere"},
                                               {"OPENAI_API_KEY", "sk-test"}};
    Result<AdvisorSettings> s = ResolveSettings({}, FakeEnvironment(vars));
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(s->endpoint.base_url, "https://api.openai.com/v1");
    EXPECT_EQ(s->endpoint.base_url, kOpenAiBaseUrl);
    EXPECT_EQ(s->base_url_from, "OpenAI's default, as OPENAI_API_KEY is set");
    EXPECT_EQ(s->endpoint.api_key, "sk-test");
    // LoadSettings gives the sources only: the defaults come last.
    Result<AdvisorSettings> loaded = LoadSettings(FakeEnvironment(vars));
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->endpoint.base_url, "");
    EXPECT_EQ(loaded->model, "");

    // A base URL from any source wins over the default.
    s = ResolveSettings({.base_url = "http://flag/v1"}, FakeEnvironment(vars));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "http://flag/v1");
    EXPECT_EQ(s->base_url_from, "--base-url");
    for (const char* name : {"OPENAI_BASE_URL", "COOKGRAPH_BASE_URL"}) {
      std::map<std::string, std::string> with = vars;
      with[name] = "http://env/v1";
      s = ResolveSettings({}, FakeEnvironment(with));
      ASSERT_TRUE(s);
      EXPECT_EQ(s->endpoint.base_url, "http://env/v1") << name;
      EXPECT_EQ(s->base_url_from, name);
    }
    Write(dir / "work/cookgraph.yaml", "llm:\n  base_url: http://local/v1\n");
    s = ResolveSettings({}, FakeEnvironment(vars));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "http://local/v1");
    EXPECT_EQ(s->base_url_from, "./cookgraph.yaml");

    // A key from the config file is a key too; an Azure one has no default.
    Write(dir / "work/cookgraph.yaml", "llm:\n  api_key: sk-file\n");
    s = ResolveSettings({}, FakeEnvironment({{"HOME", dir / "nowhere"}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "https://api.openai.com/v1");
    EXPECT_EQ(s->base_url_from, "OpenAI's default, as an API key is set (cookgraph.yaml)");
    Write(dir / "work/cookgraph.yaml", "llm:\n  api_key: sk-file\n  azure: true\n");
    s = ResolveSettings({}, FakeEnvironment({{"HOME", dir / "nowhere"}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->endpoint.base_url, "");
    EXPECT_EQ(s->base_url_from, "");
  });
}

TEST(Settings, TheModelHasADocumentedDefault) {
  TempDir dir;
  std::filesystem::create_directories(dir / "work");
  InFolder(dir / "work", [&] {
    const std::string home = dir / "nowhere";
    Result<AdvisorSettings> s = ResolveSettings({}, FakeEnvironment({{"HOME", home}}));
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(kDefaultModel, "gpt-4o-mini");
    EXPECT_EQ(s->model, "gpt-4o-mini");
    EXPECT_EQ(s->model_from, "the default");
    EXPECT_EQ(s->model_from, kDefaultModelFrom);
    s = ResolveSettings({}, FakeEnvironment({{"HOME", home}, {"COOKGRAPH_MODEL", "env-model"}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->model, "env-model");
    EXPECT_EQ(s->model_from, "COOKGRAPH_MODEL");
    s = ResolveSettings({.model = "flag-model"}, FakeEnvironment({{"HOME", home}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->model, "flag-model");
    EXPECT_EQ(s->model_from, "--model");
    Write(dir / "work/cookgraph.yaml", "llm:\n  model: file-model\n");
    s = ResolveSettings({}, FakeEnvironment({{"HOME", home}}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->model, "file-model");
    EXPECT_EQ(s->model_from, "./cookgraph.yaml");
  });
}

TEST(Settings, NothingConfiguredIsNoEndpoint) {
  TempDir dir;
  std::filesystem::create_directories(dir / "work");
  InFolder(dir / "work", [&] {
    // No key, no base URL: no endpoint (a dry run still works, with the default model).
    Result<AdvisorSettings> s = ResolveSettings({}, FakeEnvironment({{"HOME", dir / "nowhere"}}));
    ASSERT_TRUE(s) << s.error().Format();
    EXPECT_EQ(s->endpoint.base_url, "");
    EXPECT_EQ(s->base_url_from, "");
    EXPECT_EQ(s->endpoint.api_key, "");
    EXPECT_EQ(s->model, "gpt-4o-mini");
    AdvisorSettings bare;
    ApplyDefaults(bare);
    EXPECT_EQ(bare.endpoint.base_url, "");
    EXPECT_EQ(bare.model, kDefaultModel);
  });
}

TEST(Settings, NoEndpointHelpSaysHowAndThatReportWorksOffline) {
  const std::string help = NoEndpointHelp();
  for (const char* part :
       {"COOKGRAPH_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "COOKGRAPH_MODEL", "gpt-4o-mini",
        "./cookgraph.yaml", "report` works offline"}) {
    EXPECT_NE(help.find(part), std::string::npos) << part;
  }
}

}  // namespace
}  // namespace cookgraph
