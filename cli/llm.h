#ifndef COOKGRAPH_CLI_LLM_H_
#define COOKGRAPH_CLI_LLM_H_

// What `ask`, `report` and `serve` share: the advisor's options (the overrides
// of advisor/settings.h's ResolveSettings), and one snapshot read, analysed
// and judged by its knowledge pack (advisor/judge.h).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "advisor/judge.h"
#include "advisor/prompt.h"
#include "advisor/settings.h"
#include "cli/input.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"
#include "pipeline/pipeline.h"

namespace cookgraph::cli {

/// The advisor's flags, bound to the overrides that ResolveSettings
/// (advisor/settings.h) puts over the environment and the config files.
using LlmFlags = SettingsOverrides;

/// Adds --persona, --model, --budget-tokens, --base-url, --tokenizer, --pack, --no-stream.
void AddLlmOptions(CLI::App& sub, LlmFlags& flags);

/// Reads `input`, analyses it (with the what-if gains when `gains`:
/// AnalysisOptions::gains) and evaluates `pack_path` (or the engine's
/// built-in pack): the pipeline's ReadAndJudge. On failure prints the error
/// and gives the exit code.
std::variant<std::unique_ptr<Judged>, int> ReadAndJudge(const InputArgs& input,
                                                        const std::string& pack_path,
                                                        bool gains = false);

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_LLM_H_
