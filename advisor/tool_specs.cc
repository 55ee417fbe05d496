#include <string>
#include <utility>
#include <vector>

#include "advisor/tools.h"

// What each tool over an analysis takes and gives (docs/architecture.md#tools-the-model-can-call):
// its arguments as the chat request and MCP's inputSchema offer them, and its
// result as MCP's outputSchema. One table for `ask`, the page and `cookgraph mcp`.

namespace cookgraph {
namespace {

// A value that may be null: the numbers of a node that never cooked.
// (anyOf rather than a list of types: the form every client's schema dialect reads)
constexpr const char* kNumber = R"({"anyOf":[{"type":"number"},{"type":"null"}]})";
constexpr const char* kInteger = R"({"anyOf":[{"type":"integer"},{"type":"null"}]})";

std::string Object(const std::string& properties, const std::string& required = "") {
  std::string out = R"({"type":"object","properties":{)" + properties + "}";
  if (!required.empty()) out += R"(,"required":[)" + required + "]";
  return out + "}";
}

std::string Property(const std::string& name, const std::string& schema) {
  return "\"" + name + "\":" + schema;
}

// A score node (`score --format json`'s "nodes" items): its columns; `node`
// adds its place, parameters, findings and slowest frames (`extra`).
std::string ScoreNode(const std::string& extra = "") {
  std::string p = Property("id", R"({"type":"string"})") + "," +
                  Property("type", R"({"type":"string"})") + "," +
                  Property("family", R"({"type":"string"})") + "," + Property("rank", kInteger);
  for (const char* key : {"score", "avg_ms", "std_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms",
                          "per_frame_ms", "share", "gain_ms"}) {
    p += "," + Property(key, kNumber);
  }
  p += "," + Property("cooked_frames", R"({"type":"integer"})") + extra;
  return Object(p, R"("id","type","family","rank","avg_ms","score")");
}

std::string List(const std::string& key, const std::string& item, const std::string& more = "") {
  return Object(Property(key, R"({"type":"array","items":)" + item + "}") + "," +
                    Property("truncated", R"({"type":"boolean"})") + "," +
                    Property("total", R"({"type":"integer"})") + (more.empty() ? "" : "," + more),
                "\"" + key + "\"");
}

constexpr const char* kLimit = R"({"type":"integer","minimum":1,"description":"Rows at most; default %"})";

std::string Limit(int fallback) {
  std::string s = kLimit;
  s.replace(s.find('%'), 1, std::to_string(fallback));
  return s;
}

// The tools over any analysis (ToolScope::kAlways), in the order offered.
std::vector<ToolDefinition> ToolsForEveryInput() {
  const std::string node = ScoreNode();
  const std::string frame_number =
      R"({"type":"integer","description":"The engine's frame number : a trace's step number"})";
  const std::string index = R"({"type":"integer","minimum":0,"description":"0-based position"})";
  return {
      {{"summary",
        "The input at a glance: engine, frames (steps) against the budget, nodes, findings by "
        "severity, the top nodes, the critical path, and which of the other tools apply.",
        Object("")},
       Object(Property("file", R"({"type":"string"})") + "," +
                  Property("engine", R"({"type":"string"})") + "," +
                  Property("frames", R"({"type":"integer"})") + "," +
                  Property("frame_budget_ms", kNumber) + "," +
                  Property("frame_ms", R"({"type":"object"})") + "," +
                  Property("nodes", R"({"type":"integer"})") + "," +
                  Property("findings", R"({"type":"object"})") + "," +
                  Property("top", R"({"type":"array","items":{"type":"string"}})") + "," +
                  Property("tools", R"({"type":"array","items":{"type":"string"}})"),
              R"("file","engine","frames","nodes","findings","tools")"),
       ToolScope::kAlways},
      {{"top_nodes",
        "Nodes in rank order by a sort key, each exactly as `cookgraph score --format json` "
        "gives it; optionally only those whose type, family or id contain the texts given "
        "(any case; * ? glob).",
        Object(Property("sort", R"({"type":"string","enum":["score","avg","p95","max","per-frame","gpu","upstream","gain"],"description":"Default score"})") +
               "," + Property("top", Limit(10)) + "," + Property("type", R"({"type":"string"})") +
               "," + Property("family", R"({"type":"string"})") + "," +
               Property("name", R"({"type":"string","description":"Part of the id, or a glob"})"))},
       List("nodes", node, Property("sort", R"({"type":"string"})")), ToolScope::kAlways},
      {{"node",
        "One node by exact id: its statistics as `cookgraph score` gives them, gain_ms, "
        "parameters, inputs and outputs by edge kind, findings naming it, its slowest frames.",
        Object(Property("id", R"({"type":"string","description":"Exact node id"})"), R"("id")")},
       ScoreNode("," + Property("waiting", R"({"type":"boolean"})") + "," +
                 Property("parent", R"({"type":"string"})") + "," +
                 Property("params", R"({"type":"object","additionalProperties":{"type":"string"}})") + "," +
                 Property("inputs", R"({"type":"object","description":"Neighbour ids by edge kind"})") + "," +
                 Property("outputs", R"({"type":"object","description":"Neighbour ids by edge kind"})") + "," +
                 Property("findings", R"({"type":"array","items":{"type":"object","properties":{"rule":{"type":"string"},"severity":{"type":"string"},"title":{"type":"string"}}}})") + "," +
                 Property("slowest_frames", R"({"type":"array","items":{"type":"object","properties":{"index":{"type":"integer"},"frame":{"type":"integer"},"ms":{"type":"number"}}}})") + "," +
                 Property("slowest_steps", R"({"type":"array","items":{"type":"object","properties":{"index":{"type":"integer"},"step":{"type":"integer"},"ms":{"type":"number"}}}})")),
       ToolScope::kAlways},
      {{"findings",
        "What the knowledge pack found, most severe first: rule, severity, title, the nodes, "
        "the evidence, what to change and what it saves.",
        Object(Property("severity", R"({"type":"string","enum":["info","warning","critical"],"description":"This severity or worse"})") +
               "," + Property("node", R"({"type":"string","description":"Only findings naming this node id"})") +
               "," + Property("limit", Limit(10)))},
       List("findings", Object(Property("rule", R"({"type":"string"})") + "," +
                                   Property("severity", R"({"type":"string"})") + "," +
                                   Property("title", R"({"type":"string"})"),
                               R"("rule","severity","title")")),
       ToolScope::kAlways},
      {{"frames",
        "One frame (trace: step) by position or number: its time against the budget and the "
        "nodes that cooked in it, slowest first; or, with neither, the slowest frames (only "
        "those over budget with over_budget).",
        Object(Property("index", index) + "," + Property("frame", frame_number) + "," +
               Property("step", frame_number) + "," +
               Property("over_budget", R"({"type":"boolean"})") + "," +
               Property("limit", Limit(20)))},
       Object(Property("frames", R"({"type":"array"})") + "," +
              Property("nodes", R"({"type":"array"})") + "," + Property("ms", kNumber) + "," +
              Property("truncated", R"({"type":"boolean"})") + "," +
              Property("total", R"({"type":"integer"})")),
       ToolScope::kAlways},
      {{"critical_path",
        "The critical path as `cookgraph graph --format json` gives it: the network's, "
        "weighted by ms per frame; a trace's is the event path of one step (default: the "
        "slowest but the last), with its events and time per node.",
        Object(Property("step", frame_number) + "," + Property("index", index))},
       Object(Property("nodes", R"({"type":"array","items":{"type":"string"}})") + "," +
                  Property("per_frame_ms", kNumber),
              R"("nodes","per_frame_ms")"),
       ToolScope::kAlways},
      {{"whatif",
        "Predicted frame (step) time if nodes cooked factor times as long, together and each "
        "alone, as `cookgraph whatif --format json`; with no node, the largest savings.",
        Object(Property("id", R"({"type":"string","description":"A node id, with factor"})") +
               "," + Property("factor", R"({"type":"number","minimum":0,"description":"Default 0.5: twice as fast; 0 = removed"})") +
               "," + Property("changes", R"({"type":"array","maxItems":64,"items":{"type":"object","properties":{"id":{"type":"string"},"factor":{"type":"number","minimum":0}},"required":["id"]}})") +
               "," + Property("top", Limit(10)))},
       Object(Property("frames", R"({"type":"integer"})") + "," +
                  Property("before", R"({"type":"object"})") + "," +
                  Property("after", R"({"type":"object"})") + "," +
                  Property("nodes", R"({"type":"array"})"),
              R"("model","frames","before","after","nodes")"),
       ToolScope::kAlways},
      {{"container",
        "What a container (COMP, bin, module path; \"\" = top level) holds directly: "
        "containers by ms per frame, nodes in rank order.",
        Object(Property("path", R"({"type":"string"})") + "," + Property("limit", Limit(20)),
               R"("path")")},
       Object(Property("path", R"({"type":"string"})") + "," +
                  Property("containers", R"({"type":"array"})") + "," +
                  Property("nodes", R"({"type":"array"})"),
              R"("path","containers","nodes")"),
       ToolScope::kAlways},
  };
}

// The tools over what only some inputs hold: GPU kernels (a trace) and
// streaming threads (GStreamer), in the order offered.
std::vector<ToolDefinition> ToolsForSomeInputs() {
  return {
      {{"gpu_breakdown",
        "A trace's GPU time as HTA's temporal breakdown: per rank kernels, idle, compute, "
        "non-compute, communication and memory ms, per step and per stream, and the overlap "
        "of communication with compute (as `score --format json`'s \"gpu\").",
        Object("")},
       Object(Property("ranks", R"({"type":"array"})") + "," +
                  Property("overlap", R"({"type":"object"})"),
              R"("ranks")"),
       ToolScope::kGpu},
      {{"launches",
        "A trace's kernel launches: how many, the delay from launch to kernel start (mean, p50, "
        "p95, max ms), CPU time launching, kernels under 10 us, launches never run.",
        Object("")},
       Object(Property("count", R"({"type":"integer"})") + "," +
                  Property("delay_ms", R"({"type":"object"})"),
              R"("count","delay_ms")"),
       ToolScope::kGpu},
      {{"threads",
        "A GStreamer recording's streaming threads: their elements, busy ms per buffer against "
        "the buffer period, CPU load, the bottleneck thread and the latency.",
        Object("")},
       Object(Property("threads", R"({"type":"array"})") + "," +
                  Property("bottleneck_thread", R"({"anyOf":[{"type":"object"},{"type":"null"}]})"),
              R"("threads")"),
       ToolScope::kThreads},
  };
}

}  // namespace

std::vector<ToolDefinition> MakeToolDefinitions() {
  std::vector<ToolDefinition> tools = ToolsForEveryInput();
  for (ToolDefinition& tool : ToolsForSomeInputs()) tools.push_back(std::move(tool));
  return tools;
}

}  // namespace cookgraph
