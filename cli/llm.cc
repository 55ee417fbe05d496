#include "cli/llm.h"

#include <fmt/format.h>

#include "cli/command.h"

namespace cookgraph::cli {

void AddLlmOptions(CLI::App& sub, LlmFlags& flags) {
  sub.add_option("--persona", flags.persona, "how the LLM answers: " + PersonaNames())
      ->check(CLI::IsMember({"debugger", "explainer", "minimalist", "gpu-optimizer"}));
  sub.add_option("--model", flags.model, "the model to ask (else COOKGRAPH_MODEL or llm.model)");
  sub.add_option("--budget-tokens", flags.budget_tokens,
                 "tokens the whole request may take (default 20000)")
      ->check(CLI::Range(static_cast<size_t>(1), static_cast<size_t>(10'000'000)));
  sub.add_option("--base-url", flags.base_url,
                 "the endpoint's base URL, e.g. http://localhost:11434/v1 (else "
                 "COOKGRAPH_BASE_URL, OPENAI_BASE_URL or llm.base_url)");
  sub.add_option("--tokenizer", flags.tokenizer,
                 "a .tiktoken rank file for exact token counts (else advisor.tokenizer, "
                 "tiktoken's cache, or an estimate that never undercounts)");
  sub.add_option("--pack", flags.pack,
                 "a knowledge pack (YAML) of your own instead of the engine's built-in one");
  sub.add_flag("--no-stream", flags.no_stream, "ask for the whole answer at once, not streamed");
}

std::variant<std::unique_ptr<Judged>, int> ReadAndJudge(const InputArgs& input,
                                                        const std::string& pack_path, bool gains) {
  auto judged = std::make_unique<Judged>();
  const pipeline::Outcome outcome =
      pipeline::ReadAndJudge(Input{input.paths}, input.options(),
                             AnalysisOptions{.budget_ms = input.budget_ms, .gains = gains},
                             pack_path, *judged);
  for (const std::string& w : judged->analysis.warnings) PrintWarning(input.name(), w);
  if (!outcome) {
    PrintError(outcome.failure().error);
    // A user's pack is input; a built-in one that fails to load is our fault.
    return outcome.failure().internal ? kExitInternal : kExitInput;
  }
  return judged;
}

}  // namespace cookgraph::cli
