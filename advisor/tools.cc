#include "advisor/tool_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

// The tools the model can call (docs/architecture.md#tools-the-model-can-call).
// Every result is compact JSON written as `score --format json` writes its own
// (base/json_writer.h, JsonStyle::kShortest: shortest round trip; a whole double keeps its ".0"), fitted to
// its token budget by cutting lists, then details.

namespace cookgraph {
namespace tools_internal {

ToolResult ToolRun::Run(std::string_view name, std::string_view arguments) {
  if (!t_.Applies(name)) {
    for (const ToolDefinition& d : AnalysisTools::Definitions()) {
      if (d.spec.name == name) return Fail(NotHere(d));
    }
    std::string names;
    for (const ToolSpec& s : t_.specs()) names += (names.empty() ? "" : ", ") + s.name;
    return Fail(fmt::format("unknown tool {}; the tools are {}", Echo(name), names));
  }
  if (name == "summary") return Summary(arguments);
  if (name == "top_nodes") return TopNodes(arguments);
  if (name == "node") return NodeTool(arguments);
  if (name == "findings") return FindingsTool(arguments);
  if (name == "frames") return Frames(arguments);
  if (name == "critical_path") return CriticalPathTool(arguments);
  if (name == "whatif") return RunWhatIf(arguments);
  if (name == "container") return ListContainer(arguments);
  if (name == "gpu_breakdown") return GpuBreakdown(arguments);
  if (name == "launches") return Launches(arguments);
  return Threads(arguments);
}

// An error within the budget: the message, else a shorter one, else "{}",
// else nothing.
ToolResult ToolRun::Fail(const std::string& message) const {
  ToolResult r{.error = true};
  for (const std::string& text :
       {ErrorJson(message), ErrorJson(ClipBytes(message, 60)), ErrorJson("no room"), std::string("{}")}) {
    if (Fits(text)) {
      r.content = text;
      return r;
    }
  }
  return r;  // content ""
}

// "{prefix,"KEY":[rows...]}" with ',"truncated":true,"total":N' when fewer
// than `total` rows are shown. `prefix` is "" or members with no braces.
std::string ToolRun::ListDoc(std::string_view prefix, std::string_view key,
                           std::span<const std::string> rows, size_t shown, size_t total) {
  std::string out = "{";
  out += prefix;
  if (!prefix.empty()) out += ',';
  AppendJsonString(out, key);
  out += ":[";
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ',';
    out += rows[i];
  }
  out += ']';
  if (shown < total) out += fmt::format(",\"truncated\":true,\"total\":{}", total);
  out += '}';
  return out;
}

std::vector<NodeIndex> ToolRun::Ranked(const std::vector<bool>& keep) const {
  std::vector<NodeIndex> out;
  for (NodeIndex n : t_.ranked_) {
    if (keep[n]) out.push_back(n);
  }
  return out;
}

// An unknown id, with the closest one when it looks like a typo.
std::string ToolRun::UnknownId(std::string_view tool, std::string_view id) const {
  std::string message = fmt::format("{}: no node has the id {} in {}", tool, Echo(id), t_.file_);
  if (id.size() <= 256) {
    if (auto close = ClosestId(net_, id)) message += fmt::format("; did you mean {}?", Echo(*close));
  }
  return message;
}

}  // namespace tools_internal

// ---- AnalysisTools ------------------------------------------------------------------------

AnalysisTools::AnalysisTools(const Judged& judged, std::string file)
    : judged_(judged), file_(std::move(file)) {
  for (const ToolDefinition& d : Definitions()) {
    if (Applies(d.spec.name)) specs_.push_back(d.spec);
  }
  const Analysis& a = judged_.analysis;
  const Network& net = judged_.snapshot.network;
  ranked_ = Rank(a, SortKey::kScore);
  cooked_ = CookedCount(a);
  position_.assign(net.size(), ranked_.size());
  for (size_t i = 0; i < ranked_.size(); ++i) {
    if (ranked_[i] < net.size()) position_[ranked_[i]] = i;
  }
  inputs_.resize(net.size());
  outputs_.resize(net.size());
  for (size_t e = 0; e < net.edges().size(); ++e) {
    inputs_[net.edges()[e].to].push_back(e);
    outputs_[net.edges()[e].from].push_back(e);
  }
  findings_.resize(net.size());
  for (size_t i = 0; i < judged_.findings.size(); ++i) {
    std::vector<NodeIndex> nodes = judged_.findings[i].nodes;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (NodeIndex n : nodes) {
      if (n < net.size()) findings_[n].push_back(i);
    }
  }
}

AnalysisTools::~AnalysisTools() = default;

const std::vector<ToolSpec>& AnalysisTools::specs() const { return specs_; }

const std::vector<ToolDefinition>& AnalysisTools::Definitions() {
  static const std::vector<ToolDefinition> definitions = MakeToolDefinitions();
  return definitions;
}

bool AnalysisTools::Applies(std::string_view name) const {
  for (const ToolDefinition& d : Definitions()) {
    if (d.spec.name != name) continue;
    switch (d.scope) {
      case ToolScope::kAlways:
        return true;
      case ToolScope::kGpu:
        return judged_.analysis.trace && !judged_.analysis.trace->gpu.empty();
      case ToolScope::kThreads:
        return judged_.snapshot.streaming.has_value();
    }
  }
  return false;
}

const WhatIf& AnalysisTools::whatif() const {
  std::call_once(whatif_once_, [this] {
    whatif_ = std::make_unique<WhatIf>(WhatIf::Build(judged_.snapshot, judged_.analysis));
  });
  return *whatif_;
}

const ContainerIndex& AnalysisTools::containers() const {
  std::call_once(containers_once_, [this] {
    auto ci = std::make_unique<ContainerIndex>();
    const Network& net = judged_.snapshot.network;
    ci->containers = Containers(net);
    for (size_t i = 0; i < ci->containers.size(); ++i) ci->by_id.emplace(ci->containers[i].id, i);
    ci->stats.resize(ci->containers.size());
    for (ContainerStats& s : RollUp(judged_.snapshot, judged_.analysis)) {
      if (auto it = ci->by_id.find(s.id); it != ci->by_id.end()) ci->stats[it->second] = std::move(s);
    }
    ci->children.resize(ci->containers.size());
    for (size_t i = 0; i < ci->containers.size(); ++i) {
      const Container& c = ci->containers[i];
      if (c.id.empty()) continue;  // the top level itself
      if (c.parent.empty()) {
        ci->top.push_back(i);
      } else if (auto it = ci->by_id.find(c.parent); it != ci->by_id.end()) {
        ci->children[it->second].push_back(i);
      }
    }
    for (NodeIndex n = 0; n < net.size(); ++n) {
      if (net.node(n).parent.empty()) ci->top_nodes.push_back(n);
    }
    containers_ = std::move(ci);
  });
  return *containers_;
}

ToolResult AnalysisTools::Run(std::string_view name, std::string_view arguments,
                              const TokenCounter& counter, size_t max_tokens) const {
  try {
    return tools_internal::ToolRun(*this, counter, max_tokens).Run(name, arguments);
  } catch (const std::exception&) {
    // Out of memory and the like: still an answer the conversation can carry.
    ToolResult r{.error = true};
    const std::string text = tools_internal::ErrorJson("the tool failed");
    if (counter.Count(text) <= max_tokens) r.content = text;
    return r;
  }
}

}  // namespace cookgraph
