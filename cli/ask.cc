// `cookgraph ask INPUT "QUESTION"`: asks an OpenAI-compatible endpoint about
// one snapshot. The prompt (advisor/prompt.h) holds the network's numbers
// within the token budget; the answer streams to standard output, token usage
// and timing go to standard error. `--dry-run` prints the request body and
// sends nothing.

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "advisor/llm/chat_client.h"
#include "advisor/llm/chat_request.h"
#include "advisor/llm/printable_stream.h"
#include "advisor/llm/secret_filter.h"
#include "base/text.h"
#include "cli/command.h"
#include "cli/llm.h"

namespace cookgraph::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct AskArgs {
  std::string input_path;
  InputArgs input;  // paths = {input_path}, set when run
  std::string question;
  LlmFlags llm;
  bool dry_run = false;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One stderr line about the request: its size against the budget and what
// the prompt holds.
std::string RequestLine(const AdvisorSettings& s, const Prompt& prompt,
                        const TokenCounter& counter) {
  std::string line = fmt::format("{} tokens of the {} budget, counted with {}",
                                 Thousands(prompt.tokens), Thousands(s.budget_tokens),
                                 counter.Describe());
  line += fmt::format("; {} of {} ranked nodes", prompt.nodes_included, prompt.nodes_ranked);
  if (prompt.nodes_included < prompt.nodes_ranked) {
    line += fmt::format(" (the rest, {:.1f}% of frame time, summarised in one line)",
                        prompt.left_out_share * 100);
  }
  return line;
}

int RunAsk(const AskArgs& args) {
  Result<AdvisorSettings> settings = ResolveSettings(args.llm);
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  const AdvisorSettings& s = *settings;
  if (!args.dry_run && s.endpoint.base_url.empty()) {
    PrintError(Error{.message = NoEndpointHelp()});
    return kExitInput;
  }
  if (s.model.empty()) {
    PrintError(Error{.where = "--model",
                     .message = "no model configured: pass --model, set COOKGRAPH_MODEL, or put "
                                "llm: {model: NAME} in ./cookgraph.yaml"});
    return kExitInput;
  }
  // With the what-if gains: the findings say what each fix saves and the
  // prompt carries the top gains (docs/architecture.md#advice-ordered-by-impact).
  auto judged_or_exit = ReadAndJudge(args.input, s.pack, /*gains=*/true);
  if (auto* code = std::get_if<int>(&judged_or_exit)) return *code;
  const Judged& judged = *std::get<std::unique_ptr<Judged>>(judged_or_exit);

  Result<std::unique_ptr<TokenCounter>> counter = OpenTokenCounter(s);
  if (!counter) {
    PrintError(counter.error());
    return kExitInput;
  }
  const PromptInput input{.file = args.input.name(),
                          .snapshot = judged.snapshot,
                          .analysis = judged.analysis,
                          .pack = judged.pack,
                          .findings = judged.findings,
                          .question = args.question,
                          .persona = s.persona,
                          .gains = &judged.gains};
  Result<Prompt> prompt = BuildPrompt(input, **counter, s.budget_tokens);
  if (!prompt) {
    PrintError(prompt.error());
    return kExitInput;
  }
  const ChatRequest request = MakeChatRequest(s, *prompt);
  const std::string request_line = RequestLine(s, *prompt, **counter);

  if (args.dry_run) {
    if (!WriteStdout(RequestBody(request) + "\n") || std::fflush(stdout) != 0) {
      PrintError(Error{.file = "-", .message = "cannot write the request to standard output"});
      return kExitInternal;
    }
    const std::string url = s.endpoint.base_url.empty()
                                ? std::string("no endpoint configured")
                                : "POST " + UrlForMessages(ChatUrl(s.endpoint));
    const std::string key =
        s.endpoint.api_key.empty()
            ? std::string("no API key")
            : fmt::format("{} *** (from {}, masked)",
                          s.endpoint.azure ? "api-key:" : "Authorization: Bearer", s.api_key_from);
    std::fprintf(stderr, "cookgraph: dry run, nothing sent: %s; %s\n",
                 Printable(url).c_str(), Printable(key).c_str());
    std::fprintf(stderr, "cookgraph: request: %s\n", Printable(request_line).c_str());
    return kExitOk;
  }

  ChatClient client(s.endpoint);
  std::fprintf(stderr, "cookgraph: asking %s at %s: %s\n", Printable(s.model).c_str(),
               Printable(UrlForMessages(ChatUrl(s.endpoint))).c_str(),
               Printable(request_line).c_str());
  const Clock::time_point start = Clock::now();
  std::optional<Clock::time_point> first;
  bool printed = false, ends_with_newline = true, written_ok = true;
  auto show = [&](std::string_view text) {
    if (text.empty()) return;
    written_ok &= WriteStdout(text);
    std::fflush(stdout);
    printed = true;
    ends_with_newline = text.back() == '\n';
  };
  // An endpoint that echoes the key inside the answer must not print it, and
  // an answer must not drive the terminal (escape sequences become '?').
  SecretFilter filter(s.endpoint.api_key);
  PrintableStream printable;
  Result<ChatResult> answer = client.Complete(request, [&](std::string_view piece) {
    if (!piece.empty() && !first) first = Clock::now();
    show(printable.Feed(filter.Feed(piece)));
  });
  // The tail the filter holds could be the start of the key: it is passed on
  // only when the answer is complete, never when the stream was cut inside it.
  const std::string tail = filter.Finish();
  if (answer) show(printable.Feed(tail));
  show(printable.Finish());
  if (printed && !ends_with_newline) written_ok &= WriteStdout("\n");
  written_ok &= std::fflush(stdout) == 0;
  const double total_s = Seconds(Clock::now() - start);
  if (!answer) {
    PrintError(answer.error());
    return kExitLlm;
  }
  if (!written_ok) {
    PrintError(Error{.file = "-", .message = "cannot write the answer to standard output"});
    return kExitInternal;
  }
  const ChatResult& result = *answer;
  if (result.content.empty()) {
    PrintWarning("", result.reasoning.empty()
                         ? "the model sent no answer text"
                         : "the model sent reasoning but no answer text (raise "
                           "llm.max_output_tokens or ask again)");
  }
  if (result.finish_reason == "length") {
    PrintWarning("", "the answer was cut at the output-token limit (llm.max_output_tokens)");
  } else if (result.finish_reason == "content_filter") {
    PrintWarning("", "the endpoint's content filter stopped the answer");
  }
  std::string usage;
  if (result.usage) {
    usage = fmt::format("{} prompt + {} completion = {} tokens (the server's count)",
                        Thousands(result.usage->prompt_tokens),
                        Thousands(result.usage->completion_tokens),
                        Thousands(result.usage->total_tokens));
  } else {
    usage = fmt::format("{} prompt tokens (counted here; the server reported no usage)",
                        Thousands(prompt->tokens));
  }
  std::string timing = fmt::format("{:.1f} s", total_s);
  if (first) timing += fmt::format(", first text after {:.1f} s", Seconds(*first - start));
  if (result.attempts > 1) timing += fmt::format(", {} attempts", result.attempts);
  std::fprintf(stderr, "cookgraph: %s; %s%s\n", usage.c_str(), timing.c_str(),
               result.finish_reason.empty()
                   ? ""
                   : ("; finish: " + Printable(result.finish_reason)).c_str());
  return kExitOk;
}

}  // namespace

std::function<int()> SetupAsk(CLI::App& sub) {
  auto args = std::make_shared<AskArgs>();
  sub.add_option("INPUT", args->input_path,
                 "a snapshot or a Chrome trace (file, or - for standard input), or a folder "
                 "holding a GStreamer recording")
      ->required();
  AddFormatOptions(sub, args->input);
  AddBudgetOption(sub, args->input.budget_ms);
  sub.add_option("QUESTION", args->question, "what to ask about the network")->required();
  AddLlmOptions(sub, args->llm);
  sub.add_flag("--dry-run", args->dry_run,
               "print the request body (JSON) and its token count, and send nothing");
  sub.footer(
      "The answer streams to standard output; token usage and timing go to standard error.\n"
      "Settings, highest first: flags; COOKGRAPH_BASE_URL or OPENAI_BASE_URL, OPENAI_API_KEY,\n"
      "COOKGRAPH_MODEL; ./cookgraph.yaml; $XDG_CONFIG_HOME/cookgraph/config.yaml.\n"
      "Exit codes: 0 answered, 2 usage or input error (or no endpoint), 3 the endpoint failed.\n"
      "Examples:\n"
      "  COOKGRAPH_BASE_URL=http://localhost:11434/v1 COOKGRAPH_MODEL=llama3.1 \\\n"
      "    cookgraph ask examples/touchdesigner_feedback.json \"Why do frames drop?\"\n"
      "  cookgraph ask trace.json.gz \"What should I fix first?\" --model gpt-4o --dry-run");
  return [args] {
    args->input.paths = {args->input_path};
    return RunAsk(*args);
  };
}

}  // namespace cookgraph::cli
