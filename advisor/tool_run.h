#ifndef COOKGRAPH_ADVISOR_TOOL_RUN_H_
#define COOKGRAPH_ADVISOR_TOOL_RUN_H_

// Not a public header: the parts of the tools over an analysis (tools.h)
// that their files share: the arguments' validator (tool_arguments.cc), the
// container index, and ToolRun, one call's work (tools.cc; the tools by group
// in tools_nodes.cc, tools_frames.cc and tools_analysis.cc).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "advisor/tools.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "graph/containers.h"
#include "graph/suggest.h"
#include "metrics/rollup.h"
#include "metrics/whatif.h"
#include "writers/graph_formats.h"
#include "writers/score_columns.h"
#include "writers/score_sections.h"  // a node, the GPU and threads exactly as `score --format json` writes them
#include "writers/whatif_formats.h"

namespace cookgraph {

/// The container hierarchy with the roll-up of `score --group-by container`,
/// built on first use (container).
struct ContainerIndex {
  std::vector<Container> containers;                 // Containers(network): by id
  std::unordered_map<std::string, size_t> by_id;     // id -> containers
  std::vector<ContainerStats> stats;                 // per container (RollUp's numbers)
  std::vector<std::vector<size_t>> children;         // per container: containers inside it
  std::vector<size_t> top;                           // containers at the top level
  std::vector<NodeIndex> top_nodes;                  // nodes at the top level (parent "")
};

namespace tools_internal {

using score_internal::Value;

constexpr size_t kMaxArgumentBytes = 64 * 1024;
constexpr size_t kMaxStringBytes = 4096;
constexpr size_t kMaxDepth = 16;
constexpr size_t kEchoBytes = 80;  // of a name or value repeated in a message

// What a node shows at each level of detail; lists past these are cut and say
// their total.
struct Detail {
  size_t params, param_bytes, edges, findings, title_bytes, frames;
  bool parent;
};
constexpr Detail kDetails[] = {
    {.params = 16, .param_bytes = 160, .edges = 16, .findings = 8, .title_bytes = 200, .frames = 5, .parent = true},
    {.params = 4, .param_bytes = 48, .edges = 4, .findings = 2, .title_bytes = 80, .frames = 2, .parent = true},
    {.params = 0, .param_bytes = 0, .edges = 0, .findings = 0, .title_bytes = 0, .frames = 0, .parent = false},
};

// ---- Text -----------------------------------------------------------------------

// A text to find: a glob when it holds '*' or '?' (the whole text must match;
// '*' any run of bytes, '/' included; '?' one byte), else a substring; both
// ignoring ASCII case.
class Matcher {
 public:
  explicit Matcher(std::string_view text) : text_(AsciiLower(text)) {
    glob_ = text_.find_first_of("*?") != std::string::npos;
  }
  bool operator()(std::string_view s) const {
    const std::string lower = AsciiLower(s);
    return glob_ ? Glob(text_, lower) : lower.find(text_) != std::string::npos;
  }

 private:
  // Iterative, with one backtracking point: O(|p| x |s|) at worst.
  static bool Glob(std::string_view p, std::string_view s);

  std::string text_;
  bool glob_ = false;
};

// ---- JSON out ---------------------------------------------------------------------

std::string ErrorJson(std::string_view message);

// ---- Arguments --------------------------------------------------------------------

std::string Echo(std::string_view s);

std::string TypeName(const nlohmann::json& v);

// The model's arguments for `tool`: a JSON object with only `allowed` keys.
// The first problem found, in the text or in an argument read, is kept as a
// message for the model (problem()); an argument that could not be read reads
// as not given, so that a tool reads all of its arguments, then checks once.
class Arguments {
 public:
  Arguments(std::string_view tool, std::string_view text,
            std::initializer_list<std::string_view> allowed)
      : tool_(tool) {
    Parse(text, allowed);
    if (!ok() || !json_.is_object()) json_ = nlohmann::json::object();
  }

  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }

  bool Has(std::string_view key) const {
    auto it = json_.find(key);
    return it != json_.end() && !it->is_null();  // null: as if not given
  }

  std::optional<std::string> String(std::string_view key);

  // An integer in [min, max]; a number with a fraction, or out of range, is
  // refused with `what` ("an integer >= 1").
  std::optional<int64_t> Integer(std::string_view key, int64_t min, int64_t max,
                                 std::string_view what);

  // A list's length: an integer >= 1; more than AnalysisTools::kMaxLimit is
  // taken as that.
  size_t Limit(size_t fallback) {
    const auto limit = Integer("limit", 1, std::numeric_limits<int64_t>::max(), "an integer >= 1");
    if (!limit) return fallback;
    return std::min<size_t>(static_cast<size_t>(*limit), AnalysisTools::kMaxLimit);
  }

  std::optional<double> Number(std::string_view key, std::string_view what);

  std::optional<bool> Bool(std::string_view key);

  // The raw value, for a tool that reads a structure of its own (whatif's
  // changes); null when not given.
  const nlohmann::json& Raw(std::string_view key) const {
    static const nlohmann::json kNull;
    auto it = json_.find(key);
    return it == json_.end() ? kNull : *it;
  }

  // Keeps `message` as the problem (the first one found wins).
  void Problem(std::string message) { Refuse(std::move(message)); }

 private:
  void Parse(std::string_view text, std::initializer_list<std::string_view> allowed);

  // Keeps `message` unless a problem was found before; the argument reads as
  // not given.
  std::nullopt_t Refuse(std::string message) {
    if (problem_.empty()) problem_ = std::move(message);
    return std::nullopt;
  }
  std::string Wrong(std::string_view key, std::string_view what, const nlohmann::json& v) const {
    return fmt::format("{}: argument '{}' must be {}, not {}", tool_, key, what, TypeName(v));
  }
  std::string Range(std::string_view key, std::string_view what, const nlohmann::json& v) const {
    return fmt::format("{}: argument '{}' must be {}, not {}", tool_, key, what,
                       ClipBytes(v.dump(), 40));
  }

  std::string tool_;
  nlohmann::json json_ = nlohmann::json::object();
  std::string problem_;
};

// ---- One call -------------------------------------------------------------------------

// One call's work: the arguments checked, the rows rendered, the largest
// result that fits the budget chosen.
class ToolRun {
 public:
  ToolRun(const AnalysisTools& tools, const TokenCounter& counter, size_t max_tokens)
      : t_(tools),
        snap_(tools.judged_.snapshot),
        a_(tools.judged_.analysis),
        net_(snap_.network),
        counter_(counter),
        max_(max_tokens) {}

  ToolResult Run(std::string_view name, std::string_view arguments);

 private:
  bool Fits(const std::string& text) const { return counter_.Count(text) <= max_; }

  // An error within the budget: the message, else a shorter one, else "{}",
  // else nothing.
  ToolResult Fail(const std::string& message) const;

  // `content` whole, or an error when it does not fit.
  ToolResult Whole(std::string content) const {
    if (!Fits(content)) return TooLarge();
    return ToolResult{.content = std::move(content)};
  }

  // A document as compact JSON; invalid UTF-8 in ids becomes U+FFFD.
  static std::string Compact(const nlohmann::ordered_json& doc) {
    return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }

  ToolResult TooLarge() const {
    return Fail(fmt::format("the result does not fit in {} tokens", max_));
  }

  // The largest `k` in [min_rows, rows] whose render(k) fits (rows first, then
  // by bisection, as the count grows with k); nullopt when min_rows does not.
  template <typename Render>
  std::optional<std::pair<size_t, std::string>> FitRows(size_t rows, size_t min_rows,
                                                        const Render& render) const {
    std::string all = render(rows);
    if (Fits(all)) return std::pair{rows, std::move(all)};
    if (min_rows >= rows) return std::nullopt;
    std::string low = render(min_rows);
    if (!Fits(low)) return std::nullopt;
    size_t lo = min_rows, hi = rows - 1;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      std::string text = render(mid);
      if (Fits(text)) {
        lo = mid;
        low = std::move(text);
      } else {
        hi = mid - 1;
      }
    }
    return std::pair{lo, std::move(low)};
  }

  // "{prefix,"KEY":[rows...]}" with ',"truncated":true,"total":N' when fewer
  // than `total` rows are shown. `prefix` is "" or members with no braces.
  static std::string ListDoc(std::string_view prefix, std::string_view key,
                             std::span<const std::string> rows, size_t shown, size_t total);

  static std::string Members(JsonWriter& w) {  // an object's members without its braces
    w.EndObject();
    return w.text().substr(1, w.text().size() - 2);
  }

  std::vector<NodeIndex> Ranked(const std::vector<bool>& keep) const;

  std::optional<size_t> RankOf(NodeIndex n) const {
    const size_t p = t_.position_[n];
    return p < t_.cooked_ ? std::optional<size_t>(p + 1) : std::nullopt;
  }

  bool Waits(NodeIndex n) const { return n < a_.waiting.size() && a_.waiting[n]; }

  // An unknown id, with the closest one when it looks like a typo.
  std::string UnknownId(std::string_view tool, std::string_view id) const;

  // ---- node ----

  // The node's object: score's per-node object (same keys, same numbers, and
  // gain_ms when the analysis has gains), then what `detail` shows of its
  // place, parameters, findings and slowest frames.
  std::string NodeObject(NodeIndex n, const Detail& d) const;

  // "slowest_frames": the frames in which it cooked longest, longest first.
  void SlowestFrames(JsonWriter& w, NodeIndex n, size_t limit) const;

  // The pack's key parameters first (advisor/pack.h), then the others, each
  // name once.
  void Params(JsonWriter& w, const Node& node, const Detail& d) const;

  // {"data":[ids],"call":[ids],...}: the neighbours by edge kind (in the order
  // of EdgeKind), each once, the first `limit` in all.
  void Edges(JsonWriter& w, std::string_view key, const std::vector<size_t>& edges, bool inputs,
             size_t limit) const;

  void Findings(JsonWriter& w, NodeIndex n, const Detail& d) const;

  ToolResult NodeTool(std::string_view text);

  // ---- Rows of lists ----

  // {"id","type","family","rank","avg_ms","per_frame_ms","score"}, as score's.
  std::string NodeRow(NodeIndex n) const;

  ToolResult Listed(std::string content, std::span<const NodeIndex> nodes) const {
    ToolResult r{.content = std::move(content)};
    for (NodeIndex n : nodes) r.listed.push_back(net_.node(n).id);
    return r;
  }

  // ---- top_nodes ----

  ToolResult TopNodes(std::string_view text);

  // ---- container ----

  ToolResult ListContainer(std::string_view text);

  // ---- frames ----

  // A frame chosen by 'index' or by number ('frame', or 'step'): its
  // position, or the problem as a message. Neither given: nullopt and no
  // problem.
  std::optional<size_t> ChosenFrame(Arguments& args, std::string_view tool, std::string& problem) const;

  ToolResult Frames(std::string_view text);

  // The slowest frames (only those over budget with `only_over`), slowest first.
  ToolResult SlowestFrameList(bool only_over, size_t limit) const;

  ToolResult OneFrame(size_t f, size_t limit) const;

  // A trace's numbers for one step (docs/architecture.md#traces-steps-ranks-and-memory):
  // each rank's step time and straggling, GPU time, memory peaks, and what
  // grew when it is the slowest step. Short lists, cut at fixed lengths.
  void TraceStep(JsonWriter& w, const TraceSummary& t, int64_t step, size_t f) const;

  // ---- whatif ----

  ToolResult RunWhatIf(std::string_view text);

  // ---- summary ----

  ToolResult Summary(std::string_view text);

  // ---- findings ----

  ToolResult FindingsTool(std::string_view text);

  std::string FindingObject(const Finding& f) const;

  // ---- critical_path ----

  ToolResult CriticalPathTool(std::string_view text);

  // ---- gpu_breakdown, launches, threads ----

  std::string NotHere(const ToolDefinition& d) const {
    return d.scope == ToolScope::kThreads
               ? fmt::format("{}: {} is no GStreamer recording with streaming threads", d.spec.name, t_.file_)
               : fmt::format("{}: {} is no trace with GPU kernels", d.spec.name, t_.file_);
  }

  ToolResult GpuBreakdown(std::string_view text);

  ToolResult Launches(std::string_view text);

  ToolResult Threads(std::string_view text);

  const AnalysisTools& t_;
  const Snapshot& snap_;
  const Analysis& a_;
  const Network& net_;
  const TokenCounter& counter_;
  const size_t max_;
};

}  // namespace tools_internal
}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOOL_RUN_H_
