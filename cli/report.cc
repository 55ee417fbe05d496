// `cookgraph report INPUT -o FILE.(html|md)`: one snapshot's analysis, the
// knowledge pack's findings and, when an LLM endpoint is configured, its
// advice, as a self-contained HTML page or GitHub Markdown. Without an
// endpoint (or with --no-llm) the report is offline and says how to add one.
// When the endpoint fails the report is still written, with the failure in
// place of the advice, and the exit code is 3.

#include "advisor/report/report_renderers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string_view>

#include "pipeline/score.h"
#include "advisor/llm/chat_client.h"
#include "base/text.h"
#include "cli/command.h"
#include "cli/llm.h"
#include "metrics/diff.h"
#include "metrics/whatif.h"
#include "writers/atomic_file.h"
#include "writers/heatmap/heatmap_svg.h"

namespace cookgraph::cli {
namespace {

struct ReportArgs {
  InputArgs input;
  std::string output;
  std::optional<std::string> ask;
  bool no_llm = false;
  LlmFlags llm;
  std::string baseline;  // --baseline FILE; "" = none
};

// The question asked when --ask gives none.
constexpr const char* kDefaultQuestion =
    "What should I change first so that this network meets its frame budget? Rank the changes "
    "by the time they would save per frame, and name the nodes.";

struct Advice {
  std::string text;  // the LLM's answer; "" = none
  std::string note;  // why there is none, and how to get it
  int exit_code = kExitOk;
};

// Asks the configured endpoint for advice on `judged`; never fails the
// report: problems become the note (and, for the endpoint, exit code 3).
Advice AskForAdvice(const ReportArgs& args, const AdvisorSettings& s, const Judged& judged) {
  if (args.no_llm) {
    return {.note = "LLM advice: off (--no-llm); the findings above are the offline advice."};
  }
  if (s.endpoint.base_url.empty() || s.model.empty()) {
    if (args.ask) PrintWarning("", "--ask: " + NoEndpointHelp());
    return {.note = "LLM advice: none, no endpoint is configured. Set COOKGRAPH_BASE_URL (or "
                    "OPENAI_BASE_URL), COOKGRAPH_MODEL and OPENAI_API_KEY, or llm: {base_url, "
                    "model} in ./cookgraph.yaml, and run cookgraph report again; the findings "
                    "above are the offline advice."};
  }
  Result<std::unique_ptr<TokenCounter>> counter = OpenTokenCounter(s);
  Result<Prompt> prompt = Error{};
  if (counter) {
    prompt = BuildPrompt({.file = args.input.name(),
                          .snapshot = judged.snapshot,
                          .analysis = judged.analysis,
                          .pack = judged.pack,
                          .findings = judged.findings,
                          .question = args.ask.value_or(kDefaultQuestion),
                          .persona = s.persona},
                         **counter, s.budget_tokens);
  }
  if (!counter || !prompt) {
    const Error& error = counter ? prompt.error() : counter.error();
    PrintError(error);
    return {.note = "LLM advice: none, the request could not be built: " + error.Format(),
            .exit_code = kExitInput};
  }
  std::fprintf(stderr, "cookgraph: asking %s at %s (%s prompt tokens)\n",
               Printable(s.model).c_str(), Printable(UrlForMessages(ChatUrl(s.endpoint))).c_str(),
               Thousands(prompt->tokens).c_str());
  Result<ChatResult> answer = ChatClient(s.endpoint).Complete(MakeChatRequest(s, *prompt));
  if (!answer) {
    PrintError(answer.error());
    return {.note = "LLM advice: none, the endpoint failed: " + answer.error().Format(),
            .exit_code = kExitLlm};
  }
  if (answer->usage) {
    std::fprintf(stderr, "cookgraph: %s prompt + %s completion tokens (the server's count)\n",
                 Thousands(answer->usage->prompt_tokens).c_str(),
                 Thousands(answer->usage->completion_tokens).c_str());
  }
  if (answer->content.empty()) {
    return {.note = "LLM advice: none, " + s.model + " sent no answer text."};
  }
  // An endpoint that echoes the key inside the answer must not put it in the report.
  return {.text = Redact(answer->content, s.endpoint.api_key)};
}

enum class ReportFormat : uint8_t { kHtml, kMarkdown };

std::optional<ReportFormat> FormatFor(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (EndsWith(lower, ".html") || EndsWith(lower, ".htm")) return ReportFormat::kHtml;
  if (EndsWith(lower, ".md")) return ReportFormat::kMarkdown;
  return std::nullopt;
}

int RunReport(const ReportArgs& args) {
  std::optional<ReportFormat> format = FormatFor(args.output);
  if (!format) {
    PrintError(Error{.file = args.output,
                     .message = "unknown report format: name the output FILE.html, FILE.htm or "
                                "FILE.md"});
    return kExitInput;
  }
  Result<AdvisorSettings> settings = ResolveSettings(args.llm);
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  // With the gains (docs/architecture.md#what-if-predicted-gains): the gain
  // column and "What pays to fix", whose chart asks the what-if model again;
  // the model points into `judged`, which outlives it.
  auto judged_or_exit = ReadAndJudge(args.input, settings->pack, /*gains=*/true);
  if (auto* code = std::get_if<int>(&judged_or_exit)) return *code;
  const Judged& judged = *std::get<std::unique_ptr<Judged>>(judged_or_exit);
  const WhatIf whatif = WhatIf::Build(judged.snapshot, judged.analysis);

  std::optional<SnapshotDiff> comparison;
  if (!args.baseline.empty()) {
    Result<pipeline::Baseline> baseline =
        pipeline::ReadBaseline(args.baseline, args.input.options(), {});
    if (!baseline) {
      PrintError(baseline.error());
      return kExitInput;
    }
    comparison = CompareSnapshots(baseline->snapshot, baseline->analysis, judged.snapshot,
                                  judged.analysis);
  }

  const Advice advice = AskForAdvice(args, *settings, judged);
  // The heatmap is for the HTML page only (GitHub's Markdown drops inline
  // SVG). If Graphviz fails, the report is still written, saying so.
  std::optional<Heatmap> heatmap;
  std::string heatmap_note;
  int exit_code = advice.exit_code;
  if (*format == ReportFormat::kHtml) {
    Result<Heatmap> drawn = DrawHeatmap(args.input.name(), judged.snapshot, judged.analysis);
    if (drawn) {
      for (const std::string& w : drawn->warnings) {
        PrintWarning(args.input.name(), "Graphviz: " + w);
      }
      heatmap = std::move(*drawn);
    } else {
      PrintError(drawn.error());
      heatmap_note = "The heatmap could not be drawn: " + drawn.error().Format();
      if (exit_code == kExitOk) exit_code = kExitInternal;
    }
  }
  ReportInput input{.file = args.input.name(),
                    .snapshot = judged.snapshot,
                    .analysis = judged.analysis,
                    .findings = judged.findings,
                    .advice = advice.text,
                    .advice_note = advice.note,
                    .comparison = comparison ? &*comparison : nullptr,
                    .baseline_file = args.baseline,
                    .heatmap = heatmap ? &*heatmap : nullptr,
                    .heatmap_note = heatmap_note,
                    .gains = &judged.gains,
                    .whatif = &whatif};
  const std::string text =
      *format == ReportFormat::kHtml ? RenderReportHtml(input) : RenderReportMarkdown(input);
  Status written = WriteFileAtomically(args.output, text);
  if (!written) {
    PrintError(written.error());
    return kExitInput;
  }
  auto counted = [](size_t n, std::string_view noun) {
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
  };
  std::fprintf(stderr, "cookgraph: wrote %s (%s, %s, %s%s)\n", Printable(args.output).c_str(),
               counted(judged.snapshot.network.size(), "node").c_str(),
               counted(judged.snapshot.samples.frame_count(), judged.snapshot.info.frame_word()).c_str(),
               counted(judged.findings.size(), "finding").c_str(),
               advice.text.empty() ? "" : ", LLM advice");
  return exit_code;
}

}  // namespace

std::function<int()> SetupReport(CLI::App& sub) {
  auto args = std::make_shared<ReportArgs>();
  AddInputArgument(sub, args->input);
  AddBudgetOption(sub, args->input.budget_ms);
  sub.add_option("-o,--output", args->output,
                 "where to write; the extension picks the format: .html (or .htm), .md")
      ->required();
  sub.add_option("--ask", args->ask,
                 "the question for the LLM endpoint (default: what to change first to meet the "
                 "frame budget)");
  sub.add_flag("--no-llm", args->no_llm, "never ask an LLM: the offline findings only");
  sub.add_option("--baseline", args->baseline,
                 "add a comparison with this earlier snapshot (as `cookgraph diff` makes it)");
  AddLlmOptions(sub, args->llm);
  sub.footer(
      "With an LLM endpoint configured (see `cookgraph ask --help`) the report holds its\n"
      "advice too; when the endpoint fails the report is written without it and the exit\n"
      "code is 3.\n"
      "Examples:\n"
      "  cookgraph report examples/touchdesigner_feedback.json -o report.html\n"
      "  cookgraph report trace.json.gz -o report.md --pack my_rules.yaml\n"
      "  cookgraph report today.json -o report.html --baseline yesterday.json");
  return [args] { return RunReport(*args); };
}

}  // namespace cookgraph::cli
