#include "cli/llm.h"

#include <fmt/format.h>

#include "advisor/rules.h"
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

Result<AdvisorSettings> ResolveSettings(const LlmFlags& flags) {
  Result<AdvisorSettings> loaded = LoadSettings(ProcessEnvironment());
  if (!loaded) return loaded;
  AdvisorSettings& s = *loaded;
  if (flags.persona) s.persona = *ParsePersona(*flags.persona);  // CLI::IsMember checked it
  if (flags.model) {
    s.model = *flags.model;
    s.model_from = "--model";
  }
  if (flags.budget_tokens) s.budget_tokens = *flags.budget_tokens;
  if (flags.base_url) {
    s.endpoint.base_url = *flags.base_url;
    s.base_url_from = "--base-url";
  }
  if (flags.tokenizer) s.tokenizer = *flags.tokenizer;
  if (flags.pack) s.pack = *flags.pack;
  if (flags.no_stream) s.stream = false;
  return loaded;
}

std::variant<std::unique_ptr<Judged>, int> ReadAndJudge(const InputArgs& input,
                                                        const std::string& pack_path) {
  auto judged = std::make_unique<Judged>();
  Result<Snapshot> snapshot = ReadInput(input.paths, input.options());
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  judged->snapshot = std::move(*snapshot);
  const Status judging = Judge(*judged, input.budget_ms, pack_path);
  for (const std::string& w : judged->analysis.warnings) PrintWarning(input.name(), w);
  if (!judging) {
    PrintError(judging.error());
    // A user's pack is input; a built-in one that fails to load is our fault.
    return pack_path.empty() ? kExitInternal : kExitInput;
  }
  return judged;
}

Status Judge(Judged& judged, std::optional<double> budget_ms, const std::string& pack_path) {
  judged.analysis = Analyse(judged.snapshot, AnalysisOptions{.budget_ms = budget_ms});
  Result<KnowledgePack> pack = pack_path.empty() ? BuiltinPack(judged.snapshot.info.engine)
                                                 : LoadPack(pack_path);
  if (!pack) return pack.error();
  judged.pack = std::move(*pack);
  judged.findings = Evaluate(judged.pack, judged.snapshot, judged.analysis);
  return {};
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

}  // namespace cookgraph::cli
