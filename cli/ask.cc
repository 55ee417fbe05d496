// `cookgraph ask INPUT ["QUESTION"]`: asks an OpenAI-compatible endpoint about
// one snapshot (docs/commands.md#cookgraph-ask). The prompt (advisor/prompt.h) holds the
// network's numbers within the token budget, and the model may call the
// functions of advisor/tools.h for any node; the answer streams to standard
// output, token usage and timing go to standard error. Without a question (or
// with `--chat`) it is a conversation (advisor/conversation.h), saved and
// resumed with `--session`. `--dry-run` prints the request body and sends
// nothing.

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "advisor/conversation.h"
#include "advisor/llm/chat_client.h"
#include "advisor/llm/chat_request.h"
#include "advisor/llm/printable_stream.h"
#include "advisor/llm/secret_filter.h"
#include "advisor/tools.h"
#include "base/text.h"
#include "cli/command.h"
#include "cli/line_reader.h"
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
  bool chat = false;
  bool no_tools = false;
  std::string session_path;
  int max_tool_rounds = 4;
  size_t tool_result_tokens = 0;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Set by Ctrl-C while a conversation's answer is coming: it stops that answer.
// A second Ctrl-C before the first took effect ends the process, as usual.
std::atomic<bool> g_stop{false};
extern "C" void OnInterrupt(int) {
  if (g_stop.exchange(true)) {
    std::signal(SIGINT, SIG_DFL);  // both async-signal-safe
    std::raise(SIGINT);
  }
}

/// While alive, Ctrl-C stops the answer instead of the process.
class StopOnInterrupt {
 public:
  StopOnInterrupt() {
    g_stop.store(false);
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    action.sa_flags = SA_RESTART;  // a write to a slow terminal is not cut by it
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
  }
  ~StopOnInterrupt() { sigaction(SIGINT, &previous_, nullptr); }
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;

 private:
  struct sigaction previous_ = {};
};

// One stderr line about a request: its size against the budget and what it
// holds.
std::string RequestLine(const AdvisorSettings& s, const TurnRequest& r,
                        const TokenCounter& counter) {
  const Prompt& prompt = r.prompt;
  std::string line = fmt::format("{} tokens of the {} budget, counted with {}",
                                 Thousands(r.tokens), Thousands(s.budget_tokens),
                                 counter.Describe());
  line += fmt::format("; {} of {} ranked nodes", prompt.nodes_included, prompt.nodes_ranked);
  if (prompt.nodes_included < prompt.nodes_ranked) {
    line += fmt::format(" (the rest, {:.1f}% of {} time, summarised in one line)",
                        prompt.left_out_share * 100, prompt.frame_word);
  }
  if (r.earlier_sent + r.earlier_left_out > 0) {
    line += fmt::format("; {} earlier turn{}", r.earlier_sent, r.earlier_sent == 1 ? "" : "s");
    if (r.earlier_left_out > 0) {
      line += fmt::format(" ({} older left out for the budget)", r.earlier_left_out);
    }
  }
  if (r.tools_offered) line += fmt::format("; {} functions offered", r.request.tools.size());
  return line;
}

/// "gpt-4o-mini", and where it came from when it is the default.
std::string ModelNote(const AdvisorSettings& s) {
  if (!s.model_from.empty() && s.model_from.rfind("the default", 0) != 0) return "";
  return fmt::format("model {} (the default: set --model, COOKGRAPH_MODEL or llm.model)",
                     s.model);
}

/// `turn` with every occurrence of `key` in what came from the endpoint
/// replaced by "[redacted]".
Turn Redacted(Turn turn, const std::string& key) {
  if (key.empty()) return turn;
  turn.answer = Redact(std::move(turn.answer), key);
  for (ToolRound& r : turn.rounds) {
    r.content = Redact(std::move(r.content), key);
    for (ToolExchange& e : r.calls) {
      e.call.id = Redact(std::move(e.call.id), key);
      e.call.name = Redact(std::move(e.call.name), key);
      e.call.arguments = Redact(std::move(e.call.arguments), key);
    }
  }
  return turn;
}


/// Everything one `ask` runs with.
class Asker {
 public:
  Asker(const AskArgs& args, const AdvisorSettings& settings, const Judged& judged,
        const TokenCounter& counter)
      : args_(args),
        s_(settings),
        counter_(counter),
        client_(settings.endpoint),
        base_{.file = args.input.name(),
              .snapshot = judged.snapshot,
              .analysis = judged.analysis,
              .pack = judged.pack,
              .findings = judged.findings,
              .question = "",
              .persona = settings.persona,
              .gains = &judged.gains} {
    if (!args.no_tools) tools_ = std::make_unique<AnalysisTools>(judged, args.input.name());
    limits_ = ConversationLimits{.budget_tokens = settings.budget_tokens,
                                 .max_tool_rounds = args.max_tool_rounds,
                                 .tool_result_tokens = args.tool_result_tokens};
    session_.input = args.input.name();
    session_.model = settings.model;
    conversation_ = args.chat || args.question.empty() || !args.session_path.empty();
  }

  /// Reads the session file, when one is named.
  bool LoadSessionFile() {
    if (args_.session_path.empty()) return true;
    Result<Session> loaded = LoadSession(args_.session_path);
    if (!loaded) {
      PrintError(loaded.error());
      return false;
    }
    if (!args_.dry_run) {
      // Known before the first answer is paid for: the folder must take the file.
      std::filesystem::path folder = std::filesystem::path(args_.session_path).parent_path();
      if (folder.empty()) folder = ".";
      if (access(folder.c_str(), W_OK) != 0) {
        PrintError(Error{.file = args_.session_path,
                         .message = fmt::format("cannot write the session there: {}",
                                                std::strerror(errno))});
        return false;
      }
    }
    if (!loaded->turns.empty()) {
      if (loaded->input != session_.input) {
        PrintWarning(args_.session_path,
                     fmt::format("the session was about {}; it goes on about {}",
                                 Printable(loaded->input), Printable(session_.input)));
      }
      session_.turns = std::move(loaded->turns);
      std::fprintf(stderr, "cookgraph: resuming %s: %zu earlier turn%s\n",
                   Printable(args_.session_path).c_str(), session_.turns.size(),
                   session_.turns.size() == 1 ? "" : "s");
    }
    return true;
  }

  const std::vector<ToolSpec>& Specs() const {
    static const std::vector<ToolSpec> kNone;
    return tools_ && tools_on_ ? tools_->specs() : kNone;
  }

  int DryRun() {
    PromptInput input = base_;
    // Kept as the request body sends it, so that a resumed session sends the same bytes.
    input.question = ReplaceInvalidUtf8(args_.question);
    Result<TurnRequest> request =
        BuildTurnRequest(input, session_.turns, {}, Specs(), s_, counter_, limits_);
    if (!request) {
      PrintError(request.error());
      return kExitInput;
    }
    if (!WriteStdout(RequestBody(request->request) + "\n") || std::fflush(stdout) != 0) {
      PrintError(Error{.file = "-", .message = "cannot write the request to standard output"});
      return kExitInternal;
    }
    std::string url = s_.endpoint.base_url.empty()
                          ? std::string("no endpoint configured (set OPENAI_API_KEY for "
                                        "OpenAI's, or --base-url)")
                          : "POST " + UrlForMessages(ChatUrl(s_.endpoint));
    if (!s_.endpoint.base_url.empty() && s_.base_url_from.rfind("OpenAI's default", 0) == 0) {
      url += " (" + s_.base_url_from + ")";
    }
    const std::string key =
        s_.endpoint.api_key.empty()
            ? std::string("no API key")
            : fmt::format("{} *** (from {}, masked)",
                          s_.endpoint.azure ? "api-key:" : "Authorization: Bearer", s_.api_key_from);
    std::fprintf(stderr, "cookgraph: dry run, nothing sent: %s; %s\n", Printable(url).c_str(),
                 Printable(key).c_str());
    if (const std::string note = ModelNote(s_); !note.empty()) {
      std::fprintf(stderr, "cookgraph: %s\n", Printable(note).c_str());
    }
    std::fprintf(stderr, "cookgraph: request: %s\n",
                 Printable(RequestLine(s_, *request, counter_)).c_str());
    return kExitOk;
  }

  /// Asks one question as the next turn; false when it could not be answered
  /// (the reason printed). `exit_code` gets the code of the failure.
  bool Ask(const std::string& raw_question, bool stoppable, int& exit_code) {
    const std::string question = ReplaceInvalidUtf8(raw_question);
    const size_t turn_number = session_.turns.size() + 1;
    size_t request_number = 0;
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
    SecretFilter filter(s_.endpoint.api_key);
    PrintableStream printable;
    TurnEvents events;
    events.on_request = [&](const TurnRequest& r) {
      ++request_number;
      const std::string which =
          conversation_ ? fmt::format(" (turn {}, request {})", turn_number, request_number)
                        : fmt::format(" (request {})", request_number);
      std::fprintf(stderr, "cookgraph: asking %s at %s%s: %s\n", Printable(s_.model).c_str(),
                   Printable(UrlForMessages(ChatUrl(s_.endpoint))).c_str(), which.c_str(),
                   Printable(RequestLine(s_, r, counter_)).c_str());
    };
    events.on_content = [&](std::string_view piece) {
      if (!piece.empty() && !first) first = Clock::now();
      show(printable.Feed(filter.Feed(piece)));
    };
    events.on_tool = [&](const ToolExchange& e) {
      const std::string& key = s_.endpoint.api_key;
      std::fprintf(stderr, "cookgraph: the model called %s(%s)\n",
                   Printable(TruncateMiddle(Redact(e.call.name, key), 64)).c_str(),
                   Printable(TruncateMiddle(Redact(e.call.arguments, key), 120)).c_str());
    };
    std::optional<StopOnInterrupt> interrupt;
    if (stoppable) interrupt.emplace();
    TurnOutcome outcome = AskTurn(client_, tools_on_ ? tools_.get() : nullptr, base_, session_,
                                  question, s_, counter_, limits_, events,
                                  stoppable ? &g_stop : nullptr);
    interrupt.reset();
    if (outcome.tools_refused) {
      tools_on_ = false;
      PrintWarning("", "the endpoint refused the functions (tools): asking without them from now on");
    }
    // The tail the filter holds could be the start of the key: it is passed on
    // only when the answer is complete, never when the stream was cut inside it.
    const std::string tail = filter.Finish();
    if (outcome.result) show(printable.Feed(tail));
    show(printable.Finish());
    if (printed && !ends_with_newline) written_ok &= WriteStdout("\n");
    written_ok &= std::fflush(stdout) == 0;
    const double total_s = Seconds(Clock::now() - start);
    const bool stopped = outcome.error && outcome.error->where == kStoppedWhere;
    if (stopped) {
      std::fprintf(stderr, "cookgraph: stopped; the session goes on\n");
    } else if (outcome.error) {
      PrintError(*outcome.error);
      exit_code = IsEndpointError(*outcome.error) ? kExitLlm : kExitInput;
      return false;
    }
    if (!written_ok) {
      PrintError(Error{.file = "-", .message = "cannot write the answer to standard output"});
      exit_code = kExitInternal;
      return false;
    }
    const std::vector<std::string> nodes = NodesLookedAt(outcome.turn);
    size_t calls = 0;
    for (const ToolRound& r : outcome.turn.rounds) calls += r.calls.size();
    if (calls > 0) {
      std::string looked;
      for (size_t i = 0; i < nodes.size() && i < 12; ++i) {
        looked += (i > 0 ? ", " : "") + nodes[i];
      }
      if (nodes.size() > 12) looked += fmt::format(" and {} more", nodes.size() - 12);
      std::fprintf(stderr, "cookgraph: looked at %s (%zu function call%s in %zu round%s)\n",
                   nodes.empty() ? "no node" : Printable(looked).c_str(), calls,
                   calls == 1 ? "" : "s", outcome.turn.rounds.size(),
                   outcome.turn.rounds.size() == 1 ? "" : "s");
    }
    if (outcome.result) ReportUsage(*outcome.result, outcome, total_s, first, start);
    // What the endpoint echoed of the key is not kept (nor sent again).
    session_.turns.push_back(Redacted(std::move(outcome.turn), s_.endpoint.api_key));
    if (!args_.session_path.empty()) {
      // Only this turn is added, to what the file holds now: other runs on the
      // same file may have added theirs since it was read.
      if (Status saved = AppendSessionTurns(args_.session_path, session_.input, session_.model,
                                            {session_.turns.back()});
          !saved) {
        PrintError(saved.error());
        exit_code = kExitInput;
        return false;
      }
    }
    return true;
  }

  /// The conversation: questions until the end of input.
  int Chat() {
    const bool terminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1;
    LineReader reader(terminal);
    if (terminal) {
      std::fprintf(stderr,
                   "cookgraph: ask about %s; Ctrl-C stops an answer, Ctrl-D ends the session%s\n",
                   Printable(session_.input).c_str(),
                   args_.session_path.empty()
                       ? ""
                       : (" (saved to " + Printable(args_.session_path) + " after each answer)")
                             .c_str());
    }
    int exit_code = kExitOk;
    if (!args_.question.empty()) {
      int code = kExitOk;
      if (!Ask(args_.question, true, code)) {
        exit_code = code;
        if (code != kExitLlm) return code;
      }
    }
    while (std::optional<std::string> question = reader.Read("ask> ")) {
      int code = kExitOk;
      if (!Ask(*question, true, code)) {
        exit_code = code;
        // Past the budget or a session that cannot be written: asking again will not help.
        if (code != kExitLlm) return code;
      }
    }
    return exit_code;
  }

 private:
  void ReportUsage(const ChatResult& result, const TurnOutcome& outcome, double total_s,
                   std::optional<Clock::time_point> first, Clock::time_point start) const {
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
      usage = fmt::format("{} prompt + {} completion = {} tokens (the server's count{})",
                          Thousands(result.usage->prompt_tokens),
                          Thousands(result.usage->completion_tokens),
                          Thousands(result.usage->total_tokens),
                          outcome.requests > 1 ? ", last request" : "");
    } else {
      usage = fmt::format("{} prompt tokens (counted here; the server reported no usage)",
                          Thousands(outcome.last_request_tokens));
    }
    std::string timing = fmt::format("{:.1f} s", total_s);
    if (first) timing += fmt::format(", first text after {:.1f} s", Seconds(*first - start));
    if (result.attempts > 1) timing += fmt::format(", {} attempts", result.attempts);
    if (outcome.requests > 1) timing += fmt::format(", {} requests", outcome.requests);
    std::fprintf(stderr, "cookgraph: %s; %s%s\n", usage.c_str(), timing.c_str(),
                 result.finish_reason.empty()
                     ? ""
                     : ("; finish: " + Printable(result.finish_reason)).c_str());
  }

  const AskArgs& args_;
  const AdvisorSettings& s_;
  const TokenCounter& counter_;
  ChatClient client_;
  PromptInput base_;
  std::unique_ptr<AnalysisTools> tools_;
  bool tools_on_ = true;
  bool conversation_ = false;  // --chat, --session or no question: turns are numbered
  ConversationLimits limits_;
  Session session_;
};

int RunAsk(const AskArgs& args) {
  Result<AdvisorSettings> settings = ResolveSettings(args.llm);
  if (!settings) {
    PrintError(settings.error());
    return kExitInput;
  }
  const AdvisorSettings& s = *settings;
  const bool chat = args.chat || args.question.empty();
  if (args.dry_run && args.question.empty()) {
    PrintError(Error{.where = "--dry-run",
                     .message = "a dry run shows one request: give the QUESTION to ask"});
    return kExitInput;
  }
  if (!args.dry_run && s.endpoint.base_url.empty()) {
    PrintError(Error{.message = NoEndpointHelp()});
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
  Asker asker(args, s, judged, **counter);
  if (!asker.LoadSessionFile()) return kExitInput;
  if (args.dry_run) return asker.DryRun();
  if (chat) return asker.Chat();
  int exit_code = kExitOk;
  if (!asker.Ask(args.question, /*stoppable=*/false, exit_code)) return exit_code;
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
  sub.add_option("QUESTION", args->question,
                 "what to ask about the network; without it, a conversation (as --chat)");
  AddLlmOptions(sub, args->llm);
  sub.add_flag("--chat", args->chat,
               "a conversation: after the answer, ask follow-up questions (at a terminal with "
               "line editing; else one question per line of standard input)");
  sub.add_option("--session", args->session_path,
                 "save the conversation to FILE after each answer, and resume it when FILE exists");
  sub.add_flag("--no-tools", args->no_tools,
               "offer the model no functions: it sees only the data in the request");
  sub.add_option("--max-tool-rounds", args->max_tool_rounds,
                 "rounds of function calls in one answer (default 4)")
      ->check(CLI::Range(0, 16));
  sub.add_option("--tool-result-tokens", args->tool_result_tokens,
                 "tokens one function's result may take (default min(1500, budget / 10))")
      ->check(CLI::Range(static_cast<size_t>(1), static_cast<size_t>(1'000'000)));
  sub.add_flag("--dry-run", args->dry_run,
               "print the request body (JSON) and its token count, and send nothing");
  sub.footer(
      "The answer streams to standard output; token usage and timing go to standard error.\n"
      "Settings, highest first: flags; COOKGRAPH_BASE_URL or OPENAI_BASE_URL, OPENAI_API_KEY,\n"
      "COOKGRAPH_MODEL; ./cookgraph.yaml; $XDG_CONFIG_HOME/cookgraph/config.yaml. With only\n"
      "OPENAI_API_KEY the endpoint is https://api.openai.com/v1; the model defaults to " +
      std::string(kDefaultModel) +
      ".\n"
      "Exit codes: 0 answered, 2 usage or input error (or no endpoint), 3 the endpoint failed.\n"
      "Examples:\n"
      "  OPENAI_API_KEY=sk-... cookgraph ask examples/touchdesigner_feedback.json \"Why do frames "
      "drop?\"\n"
      "  COOKGRAPH_BASE_URL=http://localhost:11434/v1 COOKGRAPH_MODEL=llama3.1 \\\n"
      "    cookgraph ask examples/pytorch_model.json --session chat.json\n"
      "  cookgraph ask trace.json.gz \"What should I fix first?\" --dry-run");
  return [args] {
    args->input.paths = {args->input_path};
    return RunAsk(*args);
  };
}

}  // namespace cookgraph::cli
