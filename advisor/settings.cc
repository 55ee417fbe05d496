#include "advisor/settings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "advisor/yaml_fields.h"

namespace cookgraph {
namespace {

constexpr const char* kLocalConfig = "cookgraph.yaml";

/// A counter shared with OpenTokenCounter's cache of loaded rank files.
class SharedCounter final : public TokenCounter {
 public:
  explicit SharedCounter(std::shared_ptr<const TokenCounter> counter)
      : counter_(std::move(counter)) {}
  size_t Count(std::string_view text) const override { return counter_->Count(text); }
  bool exact() const override { return counter_->exact(); }
  std::string Describe() const override { return counter_->Describe(); }

 private:
  std::shared_ptr<const TokenCounter> counter_;
};

class ConfigReader : public YamlFields {
 public:
  ConfigReader(std::string file, AdvisorSettings& settings)
      : YamlFields(std::move(file)), s_(settings) {}

  void Read(std::string_view yaml) {
    YAML::Node root = Load(yaml);
    if (root.IsNull()) return;  // an empty file
    if (!root.IsMap()) {
      Fail(root, "", "a cookgraph config file is a YAML map (llm, advisor, watch)");
    }
    static constexpr std::array<std::string_view, 3> kSections = {"llm", "advisor", "watch"};
    CheckKeys(root, kSections, "");
    if (root["llm"]) ReadLlm(root["llm"]);
    if (root["advisor"]) ReadAdvisor(root["advisor"]);
    if (root["watch"]) ReadWatch(root["watch"]);
  }

 private:
  void ReadLlm(const YAML::Node& llm) {
    if (!llm.IsMap()) Fail(llm, "llm", "expected a map (base_url, model, ...)");
    static constexpr auto kKeys = std::to_array<std::string_view>(
        {"base_url", "model", "api_key", "api_key_env", "azure", "api_version", "temperature",
         "max_output_tokens", "max_tokens_field", "stream", "connect_timeout_s", "idle_timeout_s",
         "max_retries", "ca_bundle", "min_bytes_per_s", "rate_window_s", "max_answer_mib",
         "max_response_mib"});
    CheckKeys(llm, kKeys, "llm");
    Endpoint& e = s_.endpoint;
    if (llm["api_key"] && llm["api_key_env"]) {
      Fail(llm["api_key_env"], "llm", "give api_key or api_key_env, not both");
    }
    if (llm["base_url"]) {
      e.base_url = Text(llm["base_url"], "llm.base_url");
      s_.base_url_from = file();
    }
    if (llm["model"]) {
      s_.model = Text(llm["model"], "llm.model");
      s_.model_from = file();
    }
    if (llm["api_key"]) {
      e.api_key = Text(llm["api_key"], "llm.api_key");
      s_.api_key_from = file();
    }
    if (llm["api_key_env"]) {
      const std::string name = Text(llm["api_key_env"], "llm.api_key_env");
      const char* value = std::getenv(name.c_str());
      if (value == nullptr || *value == '\0') {
        Fail(llm["api_key_env"], "llm.api_key_env",
             "the variable " + name + " that should hold the API key is not set");
      }
      e.api_key = value;
      s_.api_key_from = "$" + name + " (" + file() + ")";
    }
    if (llm["azure"]) e.azure = Flag(llm["azure"], "llm.azure");
    if (llm["api_version"]) e.api_version = Text(llm["api_version"], "llm.api_version");
    if (llm["temperature"]) {
      s_.temperature = Bounded(llm["temperature"], "llm.temperature", 0, 2);
    }
    if (llm["max_output_tokens"]) {
      s_.max_output_tokens =
          static_cast<int64_t>(Whole(llm["max_output_tokens"], "llm.max_output_tokens", 1));
    }
    if (llm["max_tokens_field"]) {
      const std::string field = Text(llm["max_tokens_field"], "llm.max_tokens_field");
      if (field != "max_tokens" && field != "max_completion_tokens") {
        Fail(llm["max_tokens_field"], "llm.max_tokens_field",
             "expected max_completion_tokens or max_tokens");
      }
      s_.max_tokens_field = field;
    }
    if (llm["stream"]) s_.stream = Flag(llm["stream"], "llm.stream");
    if (llm["connect_timeout_s"]) {
      e.connect_timeout_s = Bounded(llm["connect_timeout_s"], "llm.connect_timeout_s", 0.001, 600);
    }
    if (llm["idle_timeout_s"]) {
      e.idle_timeout_s = Bounded(llm["idle_timeout_s"], "llm.idle_timeout_s", 0, 3600);
    }
    if (llm["max_retries"]) {
      e.max_retries = static_cast<int>(Whole(llm["max_retries"], "llm.max_retries", 0, 10));
    }
    if (llm["ca_bundle"]) e.ca_bundle = Path(llm["ca_bundle"], "llm.ca_bundle");
    if (llm["min_bytes_per_s"]) {
      e.min_bytes_per_s = Bounded(llm["min_bytes_per_s"], "llm.min_bytes_per_s", 0, 1e9);
    }
    if (llm["rate_window_s"]) {
      e.rate_window_s = Bounded(llm["rate_window_s"], "llm.rate_window_s", 0.1, 3600);
    }
    if (llm["max_answer_mib"])
      e.max_answer_bytes = Mebibytes(llm["max_answer_mib"], "llm.max_answer_mib");
    if (llm["max_response_mib"]) {
      e.max_response_bytes = Mebibytes(llm["max_response_mib"], "llm.max_response_mib");
    }
  }

  // A size in MiB (fractions allowed, from 0.001 MiB, about 1 KiB) as bytes.
  size_t Mebibytes(const YAML::Node& node, const std::string& where) {
    return static_cast<size_t>(Bounded(node, where, 0.001, 4096) * (1 << 20));
  }

  void ReadAdvisor(const YAML::Node& advisor) {
    if (!advisor.IsMap()) Fail(advisor, "advisor", "expected a map (persona, budget_tokens, ...)");
    static constexpr std::array<std::string_view, 5> kKeys = {"persona", "budget_tokens",
                                                              "tokenizer", "encoding", "pack"};
    CheckKeys(advisor, kKeys, "advisor");
    if (advisor["persona"]) {
      const std::string name = Text(advisor["persona"], "advisor.persona");
      std::optional<Persona> persona = ParsePersona(name);
      if (!persona) {
        Fail(advisor["persona"], "advisor.persona",
             "unknown persona '" + name + "': expected " + PersonaNames());
      }
      s_.persona = *persona;
    }
    if (advisor["budget_tokens"]) {
      s_.budget_tokens =
          static_cast<size_t>(Whole(advisor["budget_tokens"], "advisor.budget_tokens", 1));
    }
    if (advisor["tokenizer"]) s_.tokenizer = Path(advisor["tokenizer"], "advisor.tokenizer");
    if (advisor["encoding"]) {
      const std::string name = Text(advisor["encoding"], "advisor.encoding");
      s_.encoding = ParseEncoding(name);
      if (!s_.encoding) {
        Fail(advisor["encoding"], "advisor.encoding", "expected o200k_base or cl100k_base");
      }
    }
    if (advisor["pack"]) s_.pack = Path(advisor["pack"], "advisor.pack");
  }

  void ReadWatch(const YAML::Node& watch) {
    if (!watch.IsMap()) Fail(watch, "watch", "expected a map (listen, window, node_ms, ...)");
    static constexpr std::array<std::string_view, 5> kKeys = {"listen", "window", "node_ms",
                                                              "budget_ms", "quiet_frames"};
    CheckKeys(watch, kKeys, "watch");
    WatchSettings& w = s_.watch;
    if (watch["listen"]) {
      w.listen = Text(watch["listen"], "watch.listen");
      if (!w.listen.starts_with("udp://")) {
        Fail(watch["listen"], "watch.listen", "expected udp://HOST:PORT");
      }
    }
    if (watch["window"]) {
      w.window = static_cast<size_t>(Whole(watch["window"], "watch.window", 1, 1e8));
    }
    if (watch["node_ms"]) w.node_ms = Bounded(watch["node_ms"], "watch.node_ms", 0, 1e9);
    if (watch["budget_ms"]) w.budget_ms = Bounded(watch["budget_ms"], "watch.budget_ms", 0, 1e9);
    if (watch["quiet_frames"]) {
      w.quiet_frames =
          static_cast<size_t>(Whole(watch["quiet_frames"], "watch.quiet_frames", 1, 1e8));
    }
  }

  double Bounded(const YAML::Node& node, const std::string& where, double low, double high) {
    const double v = Number(node, where);
    if (!(v >= low && v <= high)) {
      Fail(node, where, RangeMessage(low, high));
    }
    return v;
  }

  double Whole(const YAML::Node& node, const std::string& where, double low, double high = 1e12) {
    const double v = Bounded(node, where, low, high);
    if (v != std::floor(v)) Fail(node, where, "expected a whole number");
    return v;
  }

  static std::string RangeMessage(double low, double high) {
    std::ostringstream out;
    out << "expected a number from " << low << " to " << high;
    return out.str();
  }

  // A path, relative to the config file's folder unless absolute; "~/" is the home folder.
  std::string Path(const YAML::Node& node, const std::string& where) {
    std::string text = Text(node, where);
    if (text.empty()) Fail(node, where, "expected a path");
    if (text.starts_with("~/")) {
      const char* home = std::getenv("HOME");
      if (home != nullptr) return std::string(home) + text.substr(1);
    }
    std::filesystem::path path(text);
    if (path.is_absolute()) return text;
    return (std::filesystem::path(file()).parent_path() / path).lexically_normal().string();
  }

  AdvisorSettings& s_;
};

}  // namespace

Status ApplyConfigText(std::string_view text, const std::string& path, AdvisorSettings& settings) {
  AdvisorSettings updated = settings;  // a bad file changes nothing
  try {
    ConfigReader(path, updated).Read(text);
  } catch (const YamlFailure& failure) {
    return failure.error;
  } catch (const YAML::Exception& e) {
    return YamlExceptionError(e, path);
  }
  updated.files_read.push_back(path);
  settings = std::move(updated);
  return {};
}

Status ApplyConfigFile(const std::string& path, AdvisorSettings& settings) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{.file = path, .message = "cannot read the config file"};
  std::ostringstream text;
  text << in.rdbuf();
  return ApplyConfigText(text.str(), path, settings);
}

Getenv ProcessEnvironment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

void ApplyEnvironment(const Getenv& getenv, AdvisorSettings& settings) {
  for (const char* name : {"OPENAI_BASE_URL", "COOKGRAPH_BASE_URL"}) {  // the latter wins
    if (auto value = getenv(name)) {
      settings.endpoint.base_url = *value;
      settings.base_url_from = name;
    }
  }
  if (auto value = getenv("OPENAI_API_KEY")) {
    settings.endpoint.api_key = *value;
    settings.api_key_from = "OPENAI_API_KEY";
  }
  if (auto value = getenv("COOKGRAPH_MODEL")) {
    settings.model = *value;
    settings.model_from = "COOKGRAPH_MODEL";
  }
}

std::string UserConfigPath(const Getenv& getenv) {
  if (auto xdg = getenv("XDG_CONFIG_HOME")) return *xdg + "/cookgraph/config.yaml";
  if (auto home = getenv("HOME")) return *home + "/.config/cookgraph/config.yaml";
  return "";
}

Result<AdvisorSettings> LoadSettings(const Getenv& getenv) {
  AdvisorSettings settings;
  const std::string user = UserConfigPath(getenv);
  if (!user.empty()) {
    if (Status s = ApplyConfigFile(user, settings); !s) return s.error();
  }
  if (Status s = ApplyConfigFile(kLocalConfig, settings); !s) return s.error();
  // Messages name the local file as the user would.
  for (std::string* from : {&settings.base_url_from, &settings.model_from}) {
    if (*from == kLocalConfig) *from = std::string("./") + kLocalConfig;
  }
  ApplyEnvironment(getenv, settings);
  return settings;
}

Result<AdvisorSettings> ResolveSettings(const SettingsOverrides& overrides, const Getenv& getenv) {
  Result<AdvisorSettings> loaded = LoadSettings(getenv);
  if (!loaded) return loaded;
  AdvisorSettings& s = *loaded;
  if (overrides.persona) {
    const std::optional<Persona> persona = ParsePersona(*overrides.persona);
    if (!persona) {
      return Error{.where = "persona",
                   .message = "expected " + PersonaNames() + ", got '" +
                              overrides.persona->substr(0, 40) + "'"};
    }
    s.persona = *persona;
  }
  if (overrides.model) {
    s.model = *overrides.model;
    s.model_from = overrides.model_from;
  }
  if (overrides.budget_tokens) s.budget_tokens = *overrides.budget_tokens;
  if (overrides.base_url) {
    s.endpoint.base_url = *overrides.base_url;
    s.base_url_from = overrides.base_url_from;
  }
  if (overrides.tokenizer) s.tokenizer = *overrides.tokenizer;
  if (overrides.pack) s.pack = *overrides.pack;
  if (overrides.no_stream) s.stream = false;
  ApplyDefaults(s);
  return loaded;
}

void ApplyDefaults(AdvisorSettings& settings) {
  // openai-python's convention: a key and no base URL mean OpenAI's API. An
  // Azure deployment has no such default.
  if (settings.endpoint.base_url.empty() && !settings.endpoint.api_key.empty() &&
      !settings.endpoint.azure) {
    settings.endpoint.base_url = std::string(kOpenAiBaseUrl);
    settings.base_url_from =
        settings.api_key_from == "OPENAI_API_KEY"
            ? "OpenAI's default, as OPENAI_API_KEY is set"
            : "OpenAI's default, as an API key is set (" + settings.api_key_from + ")";
  }
  if (settings.model.empty()) {
    settings.model = std::string(kDefaultModel);
    settings.model_from = std::string(kDefaultModelFrom);
  }
}

ChatRequest MakeChatRequest(const AdvisorSettings& settings, const Prompt& prompt) {
  ChatRequest request;
  request.model = settings.model;
  request.messages = prompt.messages;
  request.temperature = settings.temperature;
  request.max_output_tokens = settings.max_output_tokens;
  request.max_tokens_field = settings.max_tokens_field;
  request.stream = settings.stream;
  return request;
}

Encoding EncodingForModel(std::string_view model) {
  // After a vendor prefix such as "openai/" or "azure/".
  if (size_t slash = model.rfind('/'); slash != std::string_view::npos) {
    model = model.substr(slash + 1);
  }
  if (model.starts_with("gpt-3.5") || model.starts_with("text-embedding-3") ||
      model.starts_with("text-embedding-ada")) {
    return Encoding::kCl100k;
  }
  if (model.starts_with("gpt-4") && !model.starts_with("gpt-4o") && !model.starts_with("gpt-4.1") &&
      !model.starts_with("gpt-4.5")) {
    return Encoding::kCl100k;
  }
  return Encoding::kO200k;
}

Result<std::unique_ptr<TokenCounter>> OpenTokenCounter(const AdvisorSettings& settings) {
  Encoding encoding = settings.encoding.value_or(EncodingForModel(settings.model));
  if (!settings.encoding && !settings.tokenizer.empty()) {
    const std::string name = std::filesystem::path(settings.tokenizer).filename().string();
    if (name.find("cl100k") != std::string::npos) encoding = Encoding::kCl100k;
    if (name.find("o200k") != std::string::npos) encoding = Encoding::kO200k;
  }
  std::optional<RankFile> rank_file = FindRankFile(encoding, settings.tokenizer);
  if (!rank_file) return MakeEstimator();
  // `serve` and a conversation open a counter for every request: a rank file
  // is read once (tens of milliseconds, megabytes) while it stays the same
  // file. A loaded counter is safe to share: Count is const and keeps its
  // matching state on the stack.
  struct Loaded {
    std::string path, origin;
    Encoding encoding;
    std::filesystem::file_time_type modified;
    uintmax_t size;
    std::shared_ptr<const TokenCounter> counter;
  };
  static std::mutex mutex;
  static std::vector<Loaded> loaded;
  std::error_code ec;
  const auto modified = std::filesystem::last_write_time(rank_file->path, ec);
  const uintmax_t size = ec ? 0 : std::filesystem::file_size(rank_file->path, ec);
  std::lock_guard lock(mutex);
  auto same = [&](const Loaded& l) {
    return l.path == rank_file->path && l.origin == rank_file->origin && l.encoding == encoding;
  };
  auto it = std::find_if(loaded.begin(), loaded.end(), same);
  if (!ec && it != loaded.end() && it->modified == modified && it->size == size) {
    return std::unique_ptr<TokenCounter>(std::make_unique<SharedCounter>(it->counter));
  }
  auto counter = LoadTiktoken(rank_file->path, encoding, rank_file->origin);
  if (!counter) return counter.error();
  if (ec) return std::move(*counter);  // not a plain file: not kept
  std::shared_ptr<const TokenCounter> shared = std::move(*counter);
  if (it != loaded.end()) loaded.erase(it);
  loaded.push_back({rank_file->path, rank_file->origin, encoding, modified, size, shared});
  return std::unique_ptr<TokenCounter>(std::make_unique<SharedCounter>(std::move(shared)));
}

std::string NoEndpointHelp() {
  return "no LLM endpoint configured: set OPENAI_API_KEY for OpenAI's API, or "
         "COOKGRAPH_BASE_URL (or OPENAI_BASE_URL) for another OpenAI-compatible server, with "
         "COOKGRAPH_MODEL (else " +
         std::string(kDefaultModel) +
         "); or put llm: {base_url, model} in ./cookgraph.yaml or "
         "~/.config/cookgraph/config.yaml. `cookgraph report` works offline without one";
}

}  // namespace cookgraph
