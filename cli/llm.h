#ifndef COOKGRAPH_CLI_LLM_H_
#define COOKGRAPH_CLI_LLM_H_

// What `ask` and `report` share: the advisor's options, settings resolved
// from flags over the environment and the config files, and one snapshot read,
// analysed and judged by its knowledge pack.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "advisor/findings.h"
#include "advisor/pack.h"
#include "advisor/prompt.h"
#include "advisor/settings.h"
#include "cli/input.h"
#include "metrics/analysis.h"
#include "metrics/snapshot.h"

namespace cookgraph::cli {

/// The advisor's flags; unset ones leave the settings as the files and the
/// environment made them.
struct LlmFlags {
  std::optional<std::string> persona;
  std::optional<std::string> model;
  std::optional<size_t> budget_tokens;
  std::optional<std::string> base_url;
  std::optional<std::string> tokenizer;
  std::optional<std::string> pack;
  bool no_stream = false;
};

/// Adds --persona, --model, --budget-tokens, --base-url, --tokenizer, --pack, --no-stream.
void AddLlmOptions(CLI::App& sub, LlmFlags& flags);

/// The settings: flags over LoadSettings(). A bad config file is an error.
Result<AdvisorSettings> ResolveSettings(const LlmFlags& flags);

/// A snapshot with its analysis and the findings of its knowledge pack.
struct Judged {
  Snapshot snapshot;
  Analysis analysis;
  KnowledgePack pack;
  std::vector<Finding> findings;
};

/// Reads `input`, analyses it and evaluates `pack_path` (or the engine's
/// built-in pack). On failure prints the error and gives the exit code.
/// Analyses `judged.snapshot` (with `budget_ms` when given) and evaluates
/// `pack_path` (or the engine's built-in pack) into `judged`; the Error of a
/// pack that cannot be loaded. What ReadAndJudge and the explorer's views share.
Status Judge(Judged& judged, std::optional<double> budget_ms, const std::string& pack_path);

std::variant<std::unique_ptr<Judged>, int> ReadAndJudge(const InputArgs& input,
                                                        const std::string& pack_path);

/// The chat request for `prompt` under `settings`.
ChatRequest MakeChatRequest(const AdvisorSettings& settings, const Prompt& prompt);

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_LLM_H_
