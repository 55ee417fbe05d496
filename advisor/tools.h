#ifndef COOKGRAPH_ADVISOR_TOOLS_H_
#define COOKGRAPH_ADVISOR_TOOLS_H_

// Tools the model can call (docs/architecture.md#tools-the-model-can-call):
// functions over one loaded analysis that an LLM endpoint with OpenAI-style
// tool calls may call while it answers, and `cookgraph mcp`'s tools: a summary,
// the top nodes by a sort key (filtered by type, family or id), a node by id,
// the findings, a frame or step (or the slowest ones), the critical path, the
// what-if of nodes, the nodes of a container, and for traces and GStreamer
// recordings the GPU breakdown, launches and threads. Each runs locally on
// the Judged it was made with and returns compact JSON within its own token
// budget; nothing but the loaded input is within reach (no file, no
// environment, no key).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/judge.h"
#include "advisor/llm/chat_request.h"
#include "advisor/tokens/token_counter.h"
#include "graph/network.h"

namespace cookgraph {

// ToolSpec (a function as the request offers it: name, description and
// parameters as compact JSON schema text) is advisor/llm/chat_request.h's.

/// Which inputs a tool applies to.
enum class ToolScope : uint8_t { kAlways, kGpu /* a trace with GPU kernels */, kThreads /* GStreamer */ };

/// A tool: what it takes (the spec), what it gives back (a JSON Schema of its
/// result: MCP's outputSchema) and where it applies.
struct ToolDefinition {
  ToolSpec spec;
  std::string output_schema;
  ToolScope scope = ToolScope::kAlways;
};

/// Every tool, in the order offered (tool_specs.cc).
std::vector<ToolDefinition> MakeToolDefinitions();

/// What one call gives back.
struct ToolResult {
  /// Compact JSON: the tool's answer, or {"error":"..."} saying what was wrong.
  std::string content;
  /// The nodes the call looked at in detail (node's node, whatif's nodes),
  /// by id, in the order shown: what the answer says it looked at.
  std::vector<std::string> nodes;
  /// The other nodes the result lists (a frame's, a container's, a search's
  /// rows), by id, in the order shown.
  std::vector<std::string> listed;
  bool error = false;
};

class WhatIf;
struct ContainerIndex;  // tool_run.h
namespace tools_internal {
class ToolRun;  // tool_run.h: one call's work
}  // namespace tools_internal

/// The tools over one judged snapshot. Run is const and safe to call from
/// several threads at once; the same call always gives the same bytes.
class AnalysisTools {
 public:
  /// `judged` must outlive the tools; `file` is the input as the user named it
  /// (used in messages only).
  explicit AnalysisTools(const Judged& judged, std::string file);
  ~AnalysisTools();
  AnalysisTools(const AnalysisTools&) = delete;
  AnalysisTools& operator=(const AnalysisTools&) = delete;

  /// The tools that apply to this input, in MakeToolDefinitions' order.
  const std::vector<ToolSpec>& specs() const;

  /// Whether the tool `name` applies to this input (gpu_breakdown and
  /// launches to traces with GPU kernels, threads to GStreamer recordings).
  bool Applies(std::string_view name) const;

  /// Every tool, whether it applies here or not.
  static const std::vector<ToolDefinition>& Definitions();

  /// Runs the tool `name` on `arguments`, the model's JSON text ("" is {}).
  /// Never throws: bad JSON, an unknown tool or argument, a value of the wrong
  /// type or out of range, an argument text over 64 KiB or a string over 4 KiB
  /// give error = true and {"error":"..."} naming what was wrong. The content
  /// never takes more than `max_tokens` by `counter`: lists are cut (the
  /// result then says "truncated":true and the "total"), then details left
  /// out; when even one row does not fit, a short error does (down to "{}" or
  /// "" for budgets under it).
  ToolResult Run(std::string_view name, std::string_view arguments, const TokenCounter& counter,
                 size_t max_tokens) const;

  /// The largest number of rows a list may ask for (`limit`).
  static constexpr size_t kMaxLimit = 500;

 private:
  friend class tools_internal::ToolRun;

  const WhatIf& whatif() const;               // built on first use
  const ContainerIndex& containers() const;  // built on first use
  const std::vector<size_t>& inputs_of(NodeIndex n) const { return inputs_[n]; }
  const std::vector<size_t>& outputs_of(NodeIndex n) const { return outputs_[n]; }
  const std::vector<size_t>& findings_of(NodeIndex n) const { return findings_[n]; }

  const Judged& judged_;
  std::string file_;
  std::vector<ToolSpec> specs_;
  std::vector<NodeIndex> ranked_;      // Rank(analysis, kScore)
  std::vector<size_t> position_;       // per node: its position in ranked_
  size_t cooked_ = 0;                  // CookedCount(analysis)
  std::vector<std::vector<size_t>> inputs_, outputs_;  // per node: its edges (Network::edges)
  std::vector<std::vector<size_t>> findings_;          // per node: the findings naming it
  mutable std::once_flag whatif_once_, containers_once_;
  mutable std::unique_ptr<WhatIf> whatif_;
  mutable std::unique_ptr<ContainerIndex> containers_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOOLS_H_
