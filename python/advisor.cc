// Snapshot.prompt() and Snapshot.ask() (docs/python.md#asking-an-llm): the
// request `cookgraph ask` sends, built and sent by the same code, the
// settings resolved as the CLI resolves them, the GIL released while the
// prompt is built and while the endpoint is waited for.

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <optional>

#include "advisor/llm/chat_client.h"
#include "advisor/llm/chat_request.h"
#include "advisor/llm/secret_filter.h"
#include "advisor/prompt.h"
#include "advisor/settings.h"
#include "python/errors.h"
#include "python/options.h"
#include "python/snapshot.h"

namespace cookgraph::python {
namespace {

struct Prepared {
  AdvisorSettings settings;
  ChatRequest request;
  size_t prompt_tokens = 0;
};

// What `ask` does before it sends: settings, the pack's findings, the token
// counter and the prompt within the budget. Runs without the GIL.
Prepared Prepare(LoadedSnapshot& s, const std::string& question,
                 const SettingsOverrides& overrides) {
  Result<AdvisorSettings> settings = ResolveSettings(overrides, ProcessEnvironment());
  if (!settings) throw RaisedError{ErrorKind::kInput, settings.error()};
  // No model named: kDefaultModel (ResolveSettings), as in the CLI.
  Result<std::unique_ptr<TokenCounter>> counter = OpenTokenCounter(*settings);
  if (!counter) throw RaisedError{ErrorKind::kInput, counter.error()};
  std::lock_guard lock(s.pack_mutex);  // without the GIL: see snapshot.cc
  if (Status applied = ApplyPack(s.judged, settings->pack); !applied) {
    // A user's pack is input; a built-in one that fails to load is cookgraph's fault.
    throw RaisedError{settings->pack.empty() ? ErrorKind::kInternal : ErrorKind::kInput,
                      applied.error()};
  }
  Result<Prompt> prompt = BuildPrompt({.file = s.file,
                                       .snapshot = s.judged.snapshot,
                                       .analysis = s.judged.analysis,
                                       .pack = s.judged.pack,
                                       .findings = s.judged.findings,
                                       .question = question,
                                       .persona = settings->persona,
                                       .gains = &s.judged.gains},
                                      **counter, settings->budget_tokens);
  if (!prompt) throw RaisedError{ErrorKind::kInput, prompt.error()};
  Prepared prepared{.settings = std::move(*settings)};
  prepared.request = MakeChatRequest(prepared.settings, *prompt);
  prepared.prompt_tokens = prompt->tokens;
  return prepared;
}

py::str PromptBody(LoadedSnapshot& s, const std::string& question,
                   const std::optional<std::string>& persona,
                   const std::optional<std::string>& model, std::optional<size_t> budget_tokens,
                   const std::optional<std::string>& tokenizer,
                   const std::optional<std::string>& pack, std::optional<bool> stream) {
  const SettingsOverrides overrides =
      MakeOverrides(persona, model, budget_tokens, std::nullopt, tokenizer, pack, stream);
  std::string body;
  {
    py::gil_scoped_release released;
    body = RequestBody(Prepare(s, question, overrides).request);
  }
  return Text(body);
}

py::dict Ask(LoadedSnapshot& s, const std::string& question, const py::object& on_token,
             const std::optional<std::string>& base_url, const std::optional<std::string>& model,
             const std::optional<std::string>& persona, std::optional<size_t> budget_tokens,
             const std::optional<std::string>& tokenizer, const std::optional<std::string>& pack,
             std::optional<bool> stream) {
  const SettingsOverrides overrides =
      MakeOverrides(persona, model, budget_tokens, base_url, tokenizer, pack, stream);
  std::optional<Prepared> prepared;
  std::optional<Result<ChatResult>> answer;
  std::optional<py::error_already_set> raised;  // by on_token; the answer is read on, unseen
  {
    py::gil_scoped_release released;
    prepared = Prepare(s, question, overrides);
    const AdvisorSettings& settings = prepared->settings;
    if (settings.endpoint.base_url.empty()) {
      throw py::value_error(
          "no LLM endpoint configured: pass base_url=, or set OPENAI_API_KEY for OpenAI's API, "
          "or COOKGRAPH_BASE_URL (or OPENAI_BASE_URL), or put llm: {base_url: URL} in "
          "./cookgraph.yaml");
    }
    // The key must reach no output, also when the endpoint echoes it in the
    // answer (advisor/llm/secret_filter.h), as in `cookgraph ask`.
    SecretFilter filter(settings.endpoint.api_key);
    auto pass = [&](const std::string& text) {
      if (text.empty() || raised || on_token.is_none()) return;
      py::gil_scoped_acquire acquired;
      try {
        on_token(Text(text));
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
      }
    };
    answer = ChatClient(settings.endpoint).Complete(prepared->request, [&](std::string_view piece) {
      pass(filter.Feed(piece));
    });
    // The held tail could be the start of the key: passed on only when the
    // answer is complete, never when the stream was cut inside it.
    const std::string tail = filter.Finish();
    if (*answer) pass(tail);
  }
  if (raised) throw std::move(*raised);
  if (!*answer) throw RaisedError{ErrorKind::kLlm, answer->error()};
  const ChatResult& result = **answer;
  const std::string& key = prepared->settings.endpoint.api_key;
  py::dict out;
  out["text"] = Text(Redact(result.content, key));
  out["reasoning"] = Text(Redact(result.reasoning, key));
  out["finish_reason"] = result.finish_reason.empty() ? py::object(py::none())
                                                      : py::object(Text(result.finish_reason));
  if (result.usage) {
    py::dict usage;
    usage["prompt_tokens"] = result.usage->prompt_tokens;
    usage["completion_tokens"] = result.usage->completion_tokens;
    usage["total_tokens"] = result.usage->total_tokens;
    out["usage"] = usage;
  } else {
    out["usage"] = py::none();
  }
  out["attempts"] = result.attempts;
  out["model"] = Text(prepared->settings.model);
  out["prompt_tokens"] = prepared->prompt_tokens;
  return out;
}

}  // namespace

void BindAdvisor(SnapshotClass& cls) {
  cls.def("prompt", &PromptBody, py::arg("question"), py::kw_only(),
          py::arg("persona") = py::none(), py::arg("model") = py::none(),
          py::arg("budget_tokens") = py::none(), py::arg("tokenizer") = py::none(),
          py::arg("pack") = py::none(), py::arg("stream") = py::none(),
          "The JSON request body `cookgraph ask --dry-run` prints for `question`.");
  cls.def("ask", &Ask, py::arg("question"), py::kw_only(), py::arg("on_token") = py::none(),
          py::arg("base_url") = py::none(), py::arg("model") = py::none(),
          py::arg("persona") = py::none(), py::arg("budget_tokens") = py::none(),
          py::arg("tokenizer") = py::none(), py::arg("pack") = py::none(),
          py::arg("stream") = py::none(),
          "Asks the configured endpoint, passing each piece of the answer to on_token; "
          "returns the answer as a dict. Raises LlmError when the endpoint fails.");
}

}  // namespace cookgraph::python
