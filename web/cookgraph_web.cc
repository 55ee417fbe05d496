// The page's module (docs/web.md): the pipeline compiled to WebAssembly, run
// in the page's Web Worker (web/worker.js), which writes the files the user
// chose into the module's memory file system and calls
//
//   cg_call(method, request) -> reply
//
// with JSON text both ways. `request` is {"inputs": [path, ...], "options":
// {...}}; the reply is {"exit": N, "text": "...", "errors": [...],
// "warnings": [...]}: what the CLI would print on standard output (`text`),
// its one-line errors and warnings, and its exit code (docs/commands.md#errors-and-exit-codes).
// Methods: score (`score --format json`), graph (`graph --format json`),
// whatif (`whatif --format json`), report (`report -o FILE.md --no-llm`),
// open (the explorer's views of the inputs, as `serve` makes them), get
// (one of the explorer's API documents: "path" as the page asks for it) and
// the Ask tab's ask_* (web/page_ask.h).

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/input_files.h"
#include "advisor/report/report_renderers.h"
#include "metrics/diff.h"
#include "metrics/whatif.h"
#include "pipeline/batch.h"
#include "pipeline/pipeline.h"
#include "pipeline/score.h"
#include "server/explorer.h"
#include "web/call.h"
#include "web/page_ask.h"
#include "writers/graph_formats.h"
#include "writers/score.h"
#include "writers/whatif_formats.h"

namespace cookgraph::web {
namespace {

// The reading options every method takes.
constexpr const char* kReadKeys[] = {"format_in", "frame_marker", "keep_warmup", "hta_rounding"};

// Refuses a key of `options` that is neither a reading option nor one of
// `own` (a misspelt one would otherwise be left out without a word).
void KnownOptions(const json& options, std::initializer_list<const char*> own) {
  if (!options.is_object()) throw BadOption{"options: give an object"};
  for (const auto& item : options.items()) {
    const std::string& key = item.key();
    const auto same = [&key](const char* k) { return key == k; };
    if (std::none_of(std::begin(kReadKeys), std::end(kReadKeys), same) &&
        std::none_of(own.begin(), own.end(), same)) {
      std::string known;
      for (const char* k : kReadKeys) known += std::string(known.empty() ? "" : ", ") + k;
      for (const char* k : own) known += std::string(", ") + k;
      throw BadOption{"unknown option '" + key.substr(0, 40) + "' (known: " + known + ")"};
    }
  }
}

json OptionsOf(const json& request, std::initializer_list<const char*> own) {
  const json o = request.value("options", json::object());
  KnownOptions(o, own);
  return o;
}

ReadOptions ReadOptionsOf(const json& o) {
  ReadOptions read;
  if (auto f = Option<std::string>(o, "format_in")) {
    read.format = ParseInputFormat(*f);
    if (!read.format) throw BadOption{"format_in: expected native, chrome or gstreamer"};
  }
  if (auto m = Option<std::string>(o, "frame_marker")) {
    try {
      std::regex check(*m);
    } catch (const std::regex_error& e) {
      throw BadOption{"frame_marker: not a valid regex: " + std::string(e.what())};
    }
    read.frame_marker = *m;
  }
  read.keep_warmup = Option<bool>(o, "keep_warmup").value_or(false);
  read.hta_rounding = Option<bool>(o, "hta_rounding").value_or(false);
  return read;
}

std::optional<double> BudgetOf(const json& o) {
  std::optional<double> budget = Option<double>(o, "budget_ms");
  if (budget && !(std::isfinite(*budget) && *budget > 0 && *budget <= 1e9)) {
    throw BadOption{"budget_ms: must be a number of milliseconds > 0"};
  }
  return budget;
}

// The inputs the request names, as `score` makes them of its arguments; the
// arguments that gave none are errors (in `errors`, when given, too).
std::vector<Input> InputsOf(const json& request, Reply& reply, std::vector<Error>* errors = nullptr) {
  const InputList list = ExpandInputs(request.value("inputs", std::vector<std::string>{}));
  for (const Error& w : list.warnings) reply.Warn(w.file, w.message);
  for (const Error& e : list.errors) reply.Fail(e, kExitInput);
  if (errors) *errors = list.errors;
  return list.inputs;
}

// The one input of graph, whatif and report, or nullopt with the error said.
std::optional<Input> OneInput(const json& request, Reply& reply) {
  std::vector<Input> inputs = InputsOf(request, reply);
  if (reply.exit != kExitOk) return std::nullopt;
  if (inputs.size() != 1) {
    reply.Fail(Error{.message = "give one input (a file, a GStreamer recording or a job's ranks); " +
                                std::to_string(inputs.size()) + " were given"},
               kExitInput);
    return std::nullopt;
  }
  return inputs.front();
}

void WarnAll(Reply& reply, const Input& input, const Analysis& analysis) {
  for (const std::string& w : analysis.warnings) reply.Warn(input.name(), w);
}

// `score --format json`.
void Score(const json& request, Reply& reply) {
  const json o = OptionsOf(request, {"sort", "top", "budget_ms", "group_by"});
  ScoreOptions options;
  if (auto sort = Option<std::string>(o, "sort")) {
    const std::optional<SortKey> key = ParseSortKey(*sort);
    if (!key) {
      throw BadOption{"sort: expected score, avg, p95, max, per-frame, gpu, upstream or gain"};
    }
    options.sort = *key;
  }
  if (auto top = Option<int64_t>(o, "top")) {
    if (*top < 0) throw BadOption{"top: must be 0 (all) or more"};
    options.top = static_cast<size_t>(*top);
  }
  if (auto group = Option<std::string>(o, "group_by")) {
    if (*group != "container") throw BadOption{"group_by: expected container"};
    options.group_by_container = true;
  }
  const pipeline::ScoreRequest score{
      .read = ReadOptionsOf(o),
      .analysis = AnalysisOptions{.budget_ms = BudgetOf(o), .gains = options.sort == SortKey::kGain},
      .options = options,
      .format = ScoreFormat::kJson};
  std::vector<Error> errors;
  const std::vector<Input> inputs = InputsOf(request, reply, &errors);
  std::vector<pipeline::ScoredInput> outcomes(inputs.size());
  reply.text = RenderScoreHeader(ScoreFormat::kJson, options);
  bool first = true;
  pipeline::RunInOrder(
      inputs.size(), pipeline::BatchOptions{.jobs = 1},
      [&](size_t i) {
        outcomes[i] = pipeline::ScoreInput(inputs[i], score);
        return !outcomes[i].outcome;
      },
      [&](size_t i) {
        pipeline::ScoredInput s = std::move(outcomes[i]);
        if (!s.outcome) {
          const pipeline::Failure& f = s.outcome.failure();
          reply.Fail(f.error, f.internal ? kExitInternal : kExitInput);
          errors.push_back(f.error);
          return;
        }
        for (const std::string& w : s.warnings) reply.Warn(inputs[i].name(), w);
        if (!first) reply.text += RenderScoreSeparator(ScoreFormat::kJson);
        first = false;
        for (const std::string& piece : s.text) reply.text += piece;
      });
  reply.text += RenderScoreFooter(ScoreFormat::kJson, errors);
}

// `graph --format json`.
void Graph(const json& request, Reply& reply) {
  const json o = OptionsOf(request, {});
  const std::optional<Input> input = OneInput(request, reply);
  if (!input) return;
  Judged read;
  if (Status ok = pipeline::ReadAndAnalyse(*input, ReadOptionsOf(o), {}, read); !ok) {
    return reply.Fail(ok.error(), kExitInput);
  }
  WarnAll(reply, *input, read.analysis);
  reply.text = RenderGraph(GraphFormat::kJson, input->name(), read.snapshot, read.analysis);
}

// `whatif --format json [--node ID=F ...] [--top N]`.
void WhatIfCall(const json& request, Reply& reply) {
  const json o = OptionsOf(request, {"nodes", "top", "budget_ms"});
  const std::vector<std::string> nodes = Option<std::vector<std::string>>(o, "nodes").value_or(
      std::vector<std::string>{});
  const std::optional<int64_t> top = Option<int64_t>(o, "top");
  if (top && *top < 0) throw BadOption{"top: must be 0 (all) or more"};
  const std::optional<Input> input = OneInput(request, reply);
  if (!input) return;
  Judged read;
  if (Status ok = pipeline::ReadAndAnalyse(*input, ReadOptionsOf(o),
                                           AnalysisOptions{.budget_ms = BudgetOf(o)}, read);
      !ok) {
    return reply.Fail(ok.error(), kExitInput);
  }
  Result<std::vector<WhatIfChange>> changes =
      ParseWhatIfChanges(input->name(), nodes, read.snapshot.network);
  if (!changes) return reply.Fail(changes.error(), kExitInput);
  WarnAll(reply, *input, read.analysis);
  const WhatIf whatif = WhatIf::Build(read.snapshot, read.analysis);
  reply.text = RenderWhatIf(WhatIfFormat::kJson, input->name(), read.snapshot, whatif, *changes,
                            top ? static_cast<size_t>(*top) : 0);
}

// `report -o FILE.md --no-llm`: the page asks its questions in the Ask tab.
void Report(const json& request, Reply& reply) {
  const json o = OptionsOf(request, {"budget_ms"});
  const std::optional<Input> input = OneInput(request, reply);
  if (!input) return;
  Judged judged;
  const pipeline::Outcome outcome = pipeline::ReadAndJudge(
      *input, ReadOptionsOf(o), AnalysisOptions{.budget_ms = BudgetOf(o), .gains = true}, "",
      judged);
  WarnAll(reply, *input, judged.analysis);
  if (!outcome) {
    const pipeline::Failure& f = outcome.failure();
    return reply.Fail(f.error, f.internal ? kExitInternal : kExitInput);
  }
  const WhatIf whatif = WhatIf::Build(judged.snapshot, judged.analysis);
  reply.text = RenderReportMarkdown(ReportInput{
      .file = input->name(),
      .snapshot = judged.snapshot,
      .analysis = judged.analysis,
      .findings = judged.findings,
      .advice_note = "LLM advice: off in this report; ask in the page's Ask tab. The findings "
                     "above are the offline advice.",
      .gains = &judged.gains,
      .whatif = &whatif});
}

// The explorer of the page: the views `open` made, read by `get`.
std::unique_ptr<server::Explorer> g_explorer;

// `serve INPUT...`: one view per input; two files are BEFORE and AFTER.
void Open(const json& request, Reply& reply) {
  const json o = OptionsOf(request, {"budget_ms"});
  const ReadOptions read = ReadOptionsOf(o);
  const std::optional<double> budget = BudgetOf(o);
  const std::vector<std::string> args = request.value("inputs", std::vector<std::string>{});
  std::vector<Input> inputs = InputsOf(request, reply);
  if (reply.exit != kExitOk) return;
  const bool compare = args.size() == 2 && inputs.size() == 2;
  if (compare && inputs[0].paths != std::vector<std::string>{args[0]}) std::swap(inputs[0], inputs[1]);
  server::Dataset data;
  for (const Input& in : inputs) {
    Judged judged;
    const pipeline::Outcome outcome = pipeline::ReadAndJudge(
        in, read, AnalysisOptions{.budget_ms = budget, .gains = true}, "", judged);
    for (const std::string& w : judged.snapshot.warnings) reply.Warn(in.name(), w);
    if (!outcome) {
      const pipeline::Failure& f = outcome.failure();
      return reply.Fail(f.error, f.internal ? kExitInternal : kExitInput);
    }
    data.views.push_back(server::MakeView(in.name(), std::move(judged)));
  }
  if (compare) {
    const server::View& before = *data.views[0];
    const server::View& after = *data.views[1];
    data.diff = CompareSnapshots(before.snapshot, before.analysis, after.snapshot, after.analysis);
  }
  server::AskHooks hooks;
  // The page asks through its own settings (web/page_ask.h), not the hooks.
  hooks.not_configured = "Give the endpoint and the model in the settings above.";
  g_explorer = std::make_unique<server::Explorer>(std::move(data), std::move(hooks));
  reply.text = g_explorer->IndexJson();
}

// One document of the explorer's API: request {"path": "/api/v/0/graph?container=..."}
// as the page's script asks for it; the text is {"status": N, "body": "..."}.
void Get(const json& request, Reply& reply) {
  const std::string path = request.value("path", std::string());
  const json params = request.value("params", json::object());
  server::ApiReply answer{.status = 404, .body = json{{"error", "no such page"}}.dump()};
  if (!g_explorer) {
    answer.body = json{{"error", "no input is open"}}.dump();
  } else if (path == "/api/index") {
    answer = server::ApiReply{.body = g_explorer->IndexJson()};
  } else if (path == "/api/diff") {
    Result<std::string> diff = g_explorer->DiffJson();
    // As the server's route: 404 for nothing to compare, 400 otherwise.
    answer = diff ? server::ApiReply{.body = *diff}
                  : server::ApiReply{.status = diff.error().where == server::kNotFound ? 404 : 400,
                                     .body = json{{"error", diff.error().message}}.dump()};
  } else if (path.rfind("/api/v/", 0) == 0) {
    const std::string rest = path.substr(7);
    const size_t slash = rest.find('/');
    const std::optional<size_t> view =
        slash == std::string::npos ? std::nullopt : server::ViewNumber(rest.substr(0, slash));
    if (view) {
      answer = server::ViewDocument(*g_explorer, *view, rest.substr(slash + 1),
                                    [&params](const char* name) {
                                      const auto it = params.find(name);
                                      return it != params.end() && it->is_string()
                                                 ? it->get<std::string>()
                                                 : std::string();
                                    });
    }
  }
  reply.text = json{{"status", answer.status}, {"body", answer.body}}.dump();
}

std::string Call(const std::string& method, const std::string& request_text) {
  Reply reply;
  try {
    const json request = json::parse(request_text);
    if (method == "score") Score(request, reply);
    else if (method == "graph") Graph(request, reply);
    else if (method == "whatif") WhatIfCall(request, reply);
    else if (method == "report") Report(request, reply);
    else if (method == "open") Open(request, reply);
    else if (method == "get") Get(request, reply);
    else if (method == "ask_prompt") AskPrompt(g_explorer.get(), request, reply);
    else if (method == "ask_start") AskStart(g_explorer.get(), request, reply);
    else if (method == "ask_head") AskHead(request, reply);
    else if (method == "ask_feed") AskFeed(request, reply);
    else if (method == "ask_end") AskEnd(request, reply);
    else reply.Fail(Error{.message = "no such method: " + method}, kExitInput);
  } catch (const BadOption& bad) {
    reply = Reply{};
    reply.Fail(Error{.where = "options", .message = bad.message}, kExitInput);
  } catch (const json::exception& e) {
    reply = Reply{};
    reply.Fail(Error{.message = std::string("the request is not valid JSON: ") + e.what()}, kExitInput);
  } catch (const std::bad_alloc&) {
    reply = Reply{};
    reply.Fail(Error{.message = "out of memory: the page's memory is full; run cookgraph on the "
                                "command line for an input this large"},
               kExitInternal);
  } catch (const std::exception& e) {
    reply = Reply{};
    reply.Fail(Error{.message = std::string("internal error: ") + e.what()}, kExitInternal);
  }
  return reply.Json();
}

}  // namespace
}  // namespace cookgraph::web

extern "C" {

/// The reply to `method` with `request` (JSON), as a malloc'd C string the
/// caller frees with cg_free.
EMSCRIPTEN_KEEPALIVE char* cg_call(const char* method, const char* request) {
  const std::string reply = cookgraph::web::Call(method, request);
  char* out = static_cast<char*>(std::malloc(reply.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, reply.c_str(), reply.size() + 1);
  return out;
}

EMSCRIPTEN_KEEPALIVE void cg_free(char* text) { std::free(text); }

}  // extern "C"
