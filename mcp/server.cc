#include "mcp/server.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <span>
#include <string_view>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>
#include <vector>

#include "advisor/judge.h"
#include "advisor/prompt.h"
#include "advisor/report/report_renderers.h"
#include "advisor/tools.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "mcp/messages.h"
#include "metrics/whatif.h"
#include "pipeline/pipeline.h"

// The protocol as docs/mcp.md gives it: initialize, ping, tools, resources and
// prompts; JSON-RPC's error codes for what is no valid request, a tool's own
// errors as results with isError (so that the model reads them).

namespace cookgraph::mcp {

namespace {

// An id made of a file's name: letters, digits, '.', '-' and '_'.
std::string IdFor(const std::string& path) {
  std::filesystem::path name = std::filesystem::path(path).filename();
  if (name.empty()) name = std::filesystem::path(path).parent_path().filename();  // "dir/"
  if (name.extension() == ".gz") name = name.stem();
  std::string stem = name.has_extension() ? name.stem().string() : name.string();
  std::string id;
  for (char c : stem) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-' || c == '_';
    id += plain ? c : '_';
  }
  return id.empty() ? std::string("input") : id.substr(0, 64);
}

// Whether `path` is `root` or beneath it (both canonical).
bool Beneath(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

struct PromptDef {
  Persona persona;
  std::string_view question;
};
constexpr PromptDef kPrompts[] = {
    {Persona::kDebugger,
     "Why does it miss its frame budget, and what should I change first? Find the root causes of "
     "slow and irregular frames."},
    {Persona::kExplainer, "Explain where the time goes in it and why, in plain words."},
    {Persona::kMinimalist, "What are the few changes that matter most?"},
    {Persona::kGpuOptimizer, "Where does the GPU time go, and how do I spend less of it?"},
};

}  // namespace

struct Server::Input {
  std::string id;
  std::string file;  // as given
  std::filesystem::path canonical;
  std::unique_ptr<Judged> judged;
  std::unique_ptr<AnalysisTools> tools;
};

Server::Server(Options options) : options_(std::move(options)), counter_(MakeEstimator()) {
  if (options_.allowed.empty()) {
    std::error_code ec;
    options_.allowed.push_back(std::filesystem::weakly_canonical(std::filesystem::current_path(ec), ec));
  }
}

Server::~Server() = default;

Result<std::string> Server::OpenInput(const std::string& path) { return Open(path, false); }

const Server::Input* Server::Find(std::string_view id) const {
  for (const auto& in : inputs_) {
    if (in->id == id) return in.get();
  }
  return nullptr;
}

Result<std::string> Server::Open(const std::string& path, bool checked) {
  if (path == "-") {
    return Error{.file = path, .message = "standard input carries the protocol: give inputs as files or folders"};
  }
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  if (ec || !std::filesystem::exists(canonical, ec)) {
    return Error{.file = path, .message = "no such file or folder"};
  }
  if (checked) {
    bool allowed = false;
    std::string roots;
    for (const auto& root : options_.allowed) {
      allowed = allowed || Beneath(canonical, root);
      roots += (roots.empty() ? "" : ", ") + root.string();
    }
    if (!allowed) {
      return Error{.file = path,
                   .message = fmt::format("outside the folders cookgraph mcp may read ({}); start it "
                                          "with --allow DIR to add one",
                                          roots)};
    }
  }
  for (const auto& in : inputs_) {
    if (in->canonical == canonical) return in->id;  // open already
  }
  auto input = std::make_unique<Input>();
  input->file = path;
  input->canonical = canonical;
  input->judged = std::make_unique<Judged>();
  const pipeline::Outcome outcome = pipeline::ReadAndJudge(
      cookgraph::Input{{path}}, options_.read,
      AnalysisOptions{.budget_ms = options_.budget_ms, .gains = true}, options_.pack, *input->judged);
  if (!outcome) return outcome.failure().error;
  input->tools = std::make_unique<AnalysisTools>(*input->judged, path);
  std::string id = IdFor(path);
  for (int n = 2; Find(id) != nullptr; ++n) id = IdFor(path) + "-" + std::to_string(n);
  input->id = id;
  inputs_.push_back(std::move(input));
  return id;
}

std::string Server::LineTooLong(size_t bytes, size_t limit) {
  return ErrorLine(nullptr, kInvalidRequest,
                   fmt::format("the message is over {} bytes ({}+ read); refused unread", limit, bytes));
}

// One request's answer.
class Server::Call {
 public:
  Call(Server& server, Json id, const Json& params) : s_(server), id_(std::move(id)), params_(params) {}

  std::vector<std::string> Run(const std::string& method) {
    if (!params_.is_null() && !params_.is_object()) return Error(kInvalidParams, "params must be an object");
    if (method == "initialize") return Initialize();
    if (method == "ping") return Ok("{}");
    if (method == "tools/list") return Ok(ListObject("tools", ToolList()));
    if (method == "tools/call") return CallTool();
    if (method == "resources/list") return Ok(ListObject("resources", Resources()));
    if (method == "resources/templates/list") return Ok(ListObject("resourceTemplates", Templates()));
    if (method == "resources/read") return ReadResource();
    if (method == "prompts/list") return Ok(ListObject("prompts", Prompts()));
    if (method == "prompts/get") return GetPrompt();
    return Error(kMethodNotFound, "method not found: " + Echo(method));
  }

 private:
  std::vector<std::string> Ok(std::string_view result) const { return {ResultLine(id_, result)}; }
  std::vector<std::string> Error(int code, const std::string& message) const {
    return {ErrorLine(id_, code, message)};
  }

  // A string member of params; `problem` says what is wrong when it is not one.
  std::optional<std::string> StringParam(std::string_view key, std::string& problem) const {
    if (!params_.is_object() || !params_.contains(key)) {
      problem = fmt::format("params.{} is missing", key);
      return std::nullopt;
    }
    const Json& v = params_.at(key);
    if (!v.is_string()) {
      problem = fmt::format("params.{} must be a string", key);
      return std::nullopt;
    }
    return v.get<std::string>();
  }

  std::vector<std::string> Initialize() const {
    std::string version(kProtocolVersions[0]);
    if (params_.is_object() && params_.contains("protocolVersion") && params_["protocolVersion"].is_string()) {
      const std::string asked = params_["protocolVersion"];
      for (std::string_view v : kProtocolVersions) {
        if (v == asked) version = asked;
      }
    }
    JsonWriter w = Writer();
    w.BeginObject();
    w.StringField("protocolVersion", version);
    w.Key("capabilities");
    w.BeginObject();
    for (std::string_view what : {"tools", "resources", "prompts"}) {
      w.Key(what);
      w.BeginObject();
      w.BoolField("listChanged", what == "resources");
      if (what == "resources") w.BoolField("subscribe", false);
      w.EndObject();
    }
    w.EndObject();
    w.Key("serverInfo");
    w.BeginObject();
    w.StringField("name", "cookgraph");
    w.StringField("title", "cookgraph");
    w.StringField("version", s_.options_.version);
    w.EndObject();
    w.StringField("instructions",
                  "cookgraph's analysis of operator networks, pipelines and traces (TouchDesigner, "
                  "GStreamer, PyTorch, ONNX Runtime): call summary first, then top_nodes, node, "
                  "findings, frames, critical_path and whatif; open reads another input and gives "
                  "its id, which the other tools take as 'input'.");
    w.EndObject();
    return Ok(w.Take());
  }

  static Json InputProperty() {
    return Json{{"type", "string"},
                {"description", "An open input's id (open gives it); default: the first input"}};
  }

  // {"readOnlyHint":true,"openWorldHint":false}: every tool's annotations.
  static void Annotations(JsonWriter& w) {
    w.Key("annotations");
    w.BeginObject();
    w.BoolField("readOnlyHint", true);
    w.BoolField("openWorldHint", false);
    w.EndObject();
  }

  // {"type":"object","properties":{NAME:{"type":TYPE}...},"required":[NAME...]}
  // of string and integer members, all required.
  static void ObjectSchema(JsonWriter& w, std::string_view key,
                           std::span<const std::pair<std::string_view, std::string_view>> members) {
    w.Key(key);
    w.BeginObject();
    w.StringField("type", "object");
    w.Key("properties");
    w.BeginObject();
    for (const std::pair<std::string_view, std::string_view>& m : members) {
      w.Key(m.first);
      w.BeginObject();
      w.StringField("type", m.second);
      w.EndObject();
    }
    w.EndObject();
    w.Key("required");
    w.BeginArray();
    for (const std::pair<std::string_view, std::string_view>& m : members) w.String(m.first);
    w.EndArray();
    w.EndObject();
  }

  static std::vector<std::string> ToolList() {
    std::vector<std::string> tools;
    JsonWriter open = Writer();
    open.BeginObject();
    open.StringField("name", "open");
    open.StringField("title", "Open an input");
    open.StringField("description",
                     "Reads an input (a snapshot, a trace, a GStreamer recording's folder) beneath "
                     "the folders cookgraph mcp may read and gives its id for the other tools' "
                     "'input'.");
    open.Key("inputSchema");
    open.BeginObject();
    open.StringField("type", "object");
    open.Key("properties");
    open.BeginObject();
    open.Key("path");
    open.BeginObject();
    open.StringField("type", "string");
    open.StringField("description", "A file or folder");
    open.EndObject();
    open.EndObject();
    open.Key("required");
    open.BeginArray();
    open.String("path");
    open.EndArray();
    open.EndObject();
    constexpr std::pair<std::string_view, std::string_view> kOpened[] = {
        {"input", "string"}, {"file", "string"}, {"engine", "string"}, {"nodes", "integer"},
        {"frames", "integer"}};
    ObjectSchema(open, "outputSchema", kOpened);
    Annotations(open);
    open.EndObject();
    tools.push_back(open.Take());
    for (const ToolDefinition& d : AnalysisTools::Definitions()) {
      Json input = Json::parse(d.spec.parameters);
      input["properties"]["input"] = InputProperty();
      JsonWriter w = Writer();
      w.BeginObject();
      w.StringField("name", d.spec.name);
      w.StringField("description", d.spec.description);
      w.Key("inputSchema");
      w.Raw(Dump(input));
      w.Key("outputSchema");
      w.Raw(Dump(Json::parse(d.output_schema)));
      Annotations(w);
      w.EndObject();
      tools.push_back(w.Take());
    }
    return tools;
  }

  static std::string ToolError(const std::string& message) {
    JsonWriter w = Writer();
    w.BeginObject();
    TextContent(w, "content", message);
    w.BoolField("isError", true);
    w.EndObject();
    return w.Take();
  }

  // `structured`: the result's JSON, written already.
  static std::string ToolOk(const std::string& text, std::string_view structured) {
    JsonWriter w = Writer();
    w.BeginObject();
    TextContent(w, "content", text);
    w.Key("structuredContent");
    w.Raw(structured);
    w.BoolField("isError", false);
    w.EndObject();
    return w.Take();
  }

  std::vector<std::string> CallTool() {
    std::string problem;
    const std::optional<std::string> name = StringParam("name", problem);
    if (!name) return Error(kInvalidParams, problem);
    Json arguments = Json::object();
    if (params_.contains("arguments") && !params_["arguments"].is_null()) {
      arguments = params_["arguments"];
      if (!arguments.is_object()) return Error(kInvalidParams, "params.arguments must be an object");
    }
    if (*name == "open") return Open(arguments);
    bool known = false;
    for (const ToolDefinition& d : AnalysisTools::Definitions()) known = known || d.spec.name == *name;
    if (!known) return Error(kInvalidParams, "unknown tool: " + Echo(*name));

    const Input* input = nullptr;
    if (arguments.contains("input")) {
      if (!arguments["input"].is_string()) return Ok(ToolError(*name + ": argument 'input' must be a string"));
      const std::string id = arguments["input"];
      input = s_.Find(id);
      if (input == nullptr) return Ok(ToolError(fmt::format("{}: no open input {}; {}", *name, Echo(id), OpenIds())));
      arguments.erase("input");
    } else if (!s_.inputs_.empty()) {
      input = s_.inputs_.front().get();
    } else {
      return Ok(ToolError(*name + ": no input is open; call open with a path first"));
    }
    const ToolResult r = input->tools->Run(*name, Dump(arguments), *s_.counter_, s_.options_.max_result_tokens);
    Json parsed = Json::parse(r.content, nullptr, false);
    if (r.error || parsed.is_discarded()) {
      std::string message = r.content;
      if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string()) message = parsed["error"];
      return Ok(ToolError(message.empty() ? *name + ": the result does not fit" : message));
    }
    return Ok(ToolOk(r.content, Dump(parsed)));
  }

  std::string OpenIds() const {
    std::string ids;
    for (const auto& in : s_.inputs_) ids += (ids.empty() ? "" : ", ") + in->id;
    return ids.empty() ? "none is open" : "the open inputs are " + ids;
  }

  std::vector<std::string> Open(const Json& arguments) {
    for (const auto& [key, value] : arguments.items()) {
      if (key != "path") return Ok(ToolError("open: unknown argument " + Echo(key) + "; it takes path"));
    }
    if (!arguments.contains("path") || !arguments["path"].is_string()) {
      return Ok(ToolError("open: argument 'path' must be a string: a file or folder"));
    }
    const size_t before = s_.inputs_.size();
    Result<std::string> id = s_.Open(arguments["path"].get<std::string>(), /*checked=*/true);
    if (!id) return Ok(ToolError("open: " + id.error().Format()));
    const Input& in = *s_.Find(*id);
    const Snapshot& snap = in.judged->snapshot;
    JsonWriter w = Writer();
    w.BeginObject();
    w.StringField("input", *id);
    w.StringField("file", in.file);
    w.StringField("engine", snap.info.engine);
    w.CountField("nodes", snap.network.size());
    w.CountField("frames", snap.samples.frame_count());
    w.StringField("frame_word", snap.info.frame_word());
    w.EndObject();
    const std::string result = w.Take();
    std::vector<std::string> lines = Ok(ToolOk(result, result));
    if (s_.inputs_.size() > before) {
      JsonWriter note = Writer();
      note.BeginObject();
      note.StringField("jsonrpc", "2.0");
      note.StringField("method", "notifications/resources/list_changed");
      note.EndObject();
      lines.push_back(note.Take());
    }
    return lines;
  }

  // One resource or template: {KEY:URI,"name":...,["title":...,]"description":...,"mimeType":...}.
  static std::string Resource(std::string_view key, const std::string& uri, const std::string& name,
                              const std::string* title, const std::string& description,
                              std::string_view mime) {
    JsonWriter w = Writer();
    w.BeginObject();
    w.StringField(key, uri);
    w.StringField("name", name);
    if (title != nullptr) w.StringField("title", *title);
    w.StringField("description", description);
    w.StringField("mimeType", mime);
    w.EndObject();
    return w.Take();
  }

  std::vector<std::string> Resources() const {
    std::vector<std::string> list;
    for (const auto& in : s_.inputs_) {
      const std::string summary_title = in->file + ": summary";
      const std::string report_title = in->file + ": report";
      list.push_back(Resource("uri", "cookgraph://inputs/" + in->id + "/summary",
                              in->id + " summary", &summary_title,
                              "The summary tool's result for " + in->file, "application/json"));
      list.push_back(Resource("uri", "cookgraph://inputs/" + in->id + "/report", in->id + " report",
                              &report_title, "cookgraph report's Markdown for " + in->file,
                              "text/markdown"));
    }
    return list;
  }

  static std::vector<std::string> Templates() {
    return {Resource("uriTemplate", "cookgraph://inputs/{input}/summary", "summary", nullptr,
                     "An open input's summary", "application/json"),
            Resource("uriTemplate", "cookgraph://inputs/{input}/report", "report", nullptr,
                     "An open input's report in Markdown", "text/markdown")};
  }

  std::vector<std::string> ReadResource() {
    std::string problem;
    const std::optional<std::string> uri = StringParam("uri", problem);
    if (!uri) return Error(kInvalidParams, problem);
    constexpr std::string_view kPrefix = "cookgraph://inputs/";
    const Input* input = nullptr;
    std::string_view what;
    if (uri->starts_with(kPrefix)) {
      const std::string_view rest = std::string_view(*uri).substr(kPrefix.size());
      const size_t slash = rest.find('/');
      if (slash != std::string_view::npos) {
        input = s_.Find(rest.substr(0, slash));
        what = rest.substr(slash + 1);
      }
    }
    if (input == nullptr || (what != "summary" && what != "report")) {
      return {ReplyLine(id_, "error",
                        ErrorObject(kResourceNotFound, "resource not found: " + Echo(*uri), &*uri))};
    }
    std::string text, mime;
    if (what == "summary") {
      const ToolResult r = input->tools->Run("summary", "", *s_.counter_, s_.options_.max_result_tokens);
      if (r.error) return Error(kInternalError, "the summary could not be written");
      text = r.content;
      mime = "application/json";
    } else {
      const Judged& j = *input->judged;
      const WhatIf whatif = WhatIf::Build(j.snapshot, j.analysis);
      const ReportInput report{.file = input->file,
                               .snapshot = j.snapshot,
                               .analysis = j.analysis,
                               .findings = j.findings,
                               .advice_note = "No LLM advice here: the assistant reading this is the advisor.",
                               .gains = &j.gains,
                               .whatif = &whatif};
      text = RenderReportMarkdown(report);
      mime = "text/markdown";
    }
    JsonWriter w = Writer();
    w.BeginObject();
    w.Key("contents");
    w.BeginArray();
    w.BeginObject();
    w.StringField("uri", *uri);
    w.StringField("mimeType", mime);
    w.StringField("text", text);
    w.EndObject();
    w.EndArray();
    w.EndObject();
    return Ok(w.Take());
  }

  static std::vector<std::string> Prompts() {
    std::vector<std::string> list;
    for (const PromptDef& p : kPrompts) {
      JsonWriter w = Writer();
      w.BeginObject();
      w.StringField("name", PersonaName(p.persona));
      w.StringField("title", "cookgraph: " + std::string(PersonaName(p.persona)));
      w.StringField("description", p.question);
      w.Key("arguments");
      w.BeginArray();
      w.BeginObject();
      w.StringField("name", "input");
      w.StringField("description", "An open input's id (default: the first)");
      w.BoolField("required", false);
      w.EndObject();
      w.EndArray();
      w.EndObject();
      list.push_back(w.Take());
    }
    return list;
  }

  std::vector<std::string> GetPrompt() {
    std::string problem;
    const std::optional<std::string> name = StringParam("name", problem);
    if (!name) return Error(kInvalidParams, problem);
    const PromptDef* def = nullptr;
    for (const PromptDef& p : kPrompts) {
      if (PersonaName(p.persona) == *name) def = &p;
    }
    if (def == nullptr) {
      return Error(kInvalidParams, "unknown prompt " + Echo(*name) + "; the prompts are " + PersonaNames());
    }
    const Json& args = params_.contains("arguments") ? params_["arguments"] : Json();
    if (!args.is_null() && !args.is_object()) return Error(kInvalidParams, "params.arguments must be an object");
    const Input* input = s_.inputs_.empty() ? nullptr : s_.inputs_.front().get();
    if (args.is_object() && args.contains("input")) {
      if (!args["input"].is_string()) return Error(kInvalidParams, "arguments.input must be a string");
      input = s_.Find(args["input"].get<std::string>());
      if (input == nullptr) return Error(kInvalidParams, "no open input " + Echo(args["input"].get<std::string>()) + "; " + OpenIds());
    }
    if (input == nullptr) return Error(kInvalidParams, "no input is open; call the tool open first");
    const std::string text = fmt::format(
        "{}\n\nAbout cookgraph's input '{}' ({}, {}): {} Start with cookgraph's summary and "
        "findings tools (input \"{}\"), then top_nodes, node, frames, critical_path and whatif for "
        "the numbers behind each claim; quote the numbers they give.",
        PersonaText(def->persona), input->id, input->file, input->judged->snapshot.info.engine,
        def->question, input->id);
    JsonWriter w = Writer();
    w.BeginObject();
    w.StringField("description", def->question);
    w.Key("messages");
    w.BeginArray();
    w.BeginObject();
    w.StringField("role", "user");
    w.Key("content");
    w.BeginObject();
    w.StringField("type", "text");
    w.StringField("text", text);
    w.EndObject();
    w.EndObject();
    w.EndArray();
    w.EndObject();
    return Ok(w.Take());
  }

  Server& s_;
  Json id_;
  const Json& params_;
};

std::vector<std::string> Server::Handle(std::string_view line) {
  try {
    if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};  // a blank line
    if (JsonNestsDeeperThan(line, kMaxDepth)) {
      return {ErrorLine(nullptr, kParseError, fmt::format("the message nests more than {} levels", kMaxDepth))};
    }
    Json message = Json::parse(line, nullptr, false);
    if (message.is_discarded()) return {ErrorLine(nullptr, kParseError, "not valid JSON")};
    if (message.is_array()) return {ErrorLine(nullptr, kInvalidRequest, "batches are not supported")};
    if (!message.is_object()) return {ErrorLine(nullptr, kInvalidRequest, "a message is a JSON object")};
    const bool has_id = message.contains("id");
    Json id = has_id ? message["id"] : Json();
    if (has_id && !id.is_string() && !id.is_number_integer()) {
      return {ErrorLine(nullptr, kInvalidRequest, "id must be a string or an integer")};
    }
    if (!message.contains("jsonrpc") || message["jsonrpc"] != "2.0") {
      return {ErrorLine(has_id ? id : Json(), kInvalidRequest, "jsonrpc must be \"2.0\"")};
    }
    if (!message.contains("method")) {
      // A response (to a request this server never sends) or nothing at all.
      if (message.contains("result") || message.contains("error")) return {};
      return {ErrorLine(has_id ? id : Json(), kInvalidRequest, "method is missing")};
    }
    if (!message["method"].is_string()) return {ErrorLine(has_id ? id : Json(), kInvalidRequest, "method must be a string")};
    if (!has_id) return {};  // a notification: initialized, cancelled, ... need no answer
    const Json params = message.contains("params") ? message["params"] : Json();
    return Call(*this, id, params).Run(message["method"].get<std::string>());
  } catch (const std::exception& e) {
    return {ErrorLine(nullptr, kInternalError, fmt::format("internal error: {}", e.what()))};
  }
}

}  // namespace cookgraph::mcp
