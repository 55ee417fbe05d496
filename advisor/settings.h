#ifndef COOKGRAPH_ADVISOR_SETTINGS_H_
#define COOKGRAPH_ADVISOR_SETTINGS_H_

// The advisor's settings (docs/architecture.md#settings): where the LLM
// endpoint is, which model, the key, and how prompts are built; highest first
// flags, the environment, ./cookgraph.yaml, then the user's config file.
// Every key of the config file and its default: docs/commands.md#cookgraph-ask
// and docs/commands.md#cookgraph-watch.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "advisor/llm/chat_request.h"
#include "advisor/prompt.h"
#include "advisor/tokens/token_counter.h"
#include "base/error.h"

namespace cookgraph {

/// `cookgraph watch`'s settings from the config file; unset = the flag's default.
struct WatchSettings {
  std::string listen;  // udp://HOST:PORT; "" = not given
  std::optional<size_t> window;
  std::optional<double> node_ms;
  std::optional<double> budget_ms;
  std::optional<size_t> quiet_frames;
};

/// The model asked when no flag, COOKGRAPH_MODEL or config file names one
/// (docs/architecture.md#settings); AdvisorSettings::model_from is then
/// kDefaultModelFrom.
inline constexpr std::string_view kDefaultModel = "gpt-4o-mini";
inline constexpr std::string_view kDefaultModelFrom = "the default";

/// The endpoint of an API key without a base URL, as openai-python's.
inline constexpr std::string_view kOpenAiBaseUrl = "https://api.openai.com/v1";

struct AdvisorSettings {
  Endpoint endpoint;  // base_url "" = none configured (ResolveSettings: nor an API key)
  std::string model;  // "" = none configured (ResolveSettings: kDefaultModel then)
  std::optional<double> temperature;
  std::optional<int64_t> max_output_tokens;
  std::string max_tokens_field = "max_completion_tokens";
  bool stream = true;
  Persona persona = Persona::kDebugger;
  size_t budget_tokens = kDefaultBudgetTokens;
  std::string tokenizer;              // a .tiktoken rank file; "" = look in tiktoken's cache
  std::optional<Encoding> encoding;   // unset = EncodingForModel(model)
  std::string pack;                   // "" = the engine's built-in pack
  WatchSettings watch;                // the config file's watch: section
  // Where base_url, model and the key came from ("--base-url", "COOKGRAPH_BASE_URL",
  // "./cookgraph.yaml", ...), for messages; "" = not set.
  std::string base_url_from, model_from, api_key_from;
  std::vector<std::string> files_read;  // config files found and read, lowest first
};

/// Reads a config file into `settings`, overriding what it gives. A missing
/// file is not an error (nothing changes); a bad one is, with line and column.
Status ApplyConfigFile(const std::string& path, AdvisorSettings& settings);

/// Reads a config file's `text` into `settings`; `path` names it in errors and
/// resolves the relative paths it holds.
Status ApplyConfigText(std::string_view text, const std::string& path, AdvisorSettings& settings);

/// Looks a variable up; empty values count as unset.
using Getenv = std::function<std::optional<std::string>(const char* name)>;

/// The process environment.
Getenv ProcessEnvironment();

/// Applies COOKGRAPH_BASE_URL (else OPENAI_BASE_URL), OPENAI_API_KEY and COOKGRAPH_MODEL.
void ApplyEnvironment(const Getenv& getenv, AdvisorSettings& settings);

/// $XDG_CONFIG_HOME/cookgraph/config.yaml, else $HOME/.config/cookgraph/config.yaml;
/// "" when neither variable is set.
std::string UserConfigPath(const Getenv& getenv);

/// Defaults, then the user's config file, ./cookgraph.yaml (in the current
/// folder), then the environment. Flags are applied by the caller.
Result<AdvisorSettings> LoadSettings(const Getenv& getenv);

/// What the caller sets over the config files and the environment: the CLI's
/// flags (cli/llm.h binds them here), the Python module's keyword arguments.
/// Unset ones change nothing.
struct SettingsOverrides {
  std::optional<std::string> persona;  // a PersonaName
  std::optional<std::string> model;
  std::optional<size_t> budget_tokens;
  std::optional<std::string> base_url;
  std::optional<std::string> tokenizer;
  std::optional<std::string> pack;
  bool no_stream = false;
  /// How AdvisorSettings::model_from and base_url_from name these overrides.
  std::string model_from = "--model", base_url_from = "--base-url";
};

/// LoadSettings(getenv), then `overrides` over it, then ApplyDefaults
/// (docs/architecture.md#settings). A bad config file is an error, and so is
/// a persona that is no PersonaName.
Result<AdvisorSettings> ResolveSettings(const SettingsOverrides& overrides,
                                        const Getenv& getenv = ProcessEnvironment());

/// What is left unset after every source: with an API key and no base URL
/// (and not Azure), OpenAI's endpoint kOpenAiBaseUrl, base_url_from saying
/// why ("OpenAI's default, as OPENAI_API_KEY is set"); no model, kDefaultModel
/// with model_from kDefaultModelFrom. Nothing configured at all leaves the
/// base URL empty: there is no endpoint.
void ApplyDefaults(AdvisorSettings& settings);

/// The chat request that asks `prompt` under `settings`.
ChatRequest MakeChatRequest(const AdvisorSettings& settings, const Prompt& prompt);

/// The tokenizer of a model: cl100k_base for gpt-4 (not gpt-4o, gpt-4.1, gpt-4.5)
/// and gpt-3.5; o200k_base otherwise, the tokenizer of current OpenAI models
/// and a close stand-in for other vendors' ones.
Encoding EncodingForModel(std::string_view model);

/// The counter the settings ask for: the rank file `tokenizer` names (its
/// encoding from `encoding`, else from a "cl100k"/"o200k" in its name, else by
/// model), else one found in tiktoken's cache, else the one installed with
/// cookgraph (FindRankFile), else the estimator. A rank file that is named
/// but cannot be read is an error.
Result<std::unique_ptr<TokenCounter>> OpenTokenCounter(const AdvisorSettings& settings);

/// The one-line explanation given when no endpoint is configured.
std::string NoEndpointHelp();

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_SETTINGS_H_
