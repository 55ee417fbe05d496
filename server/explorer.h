#ifndef COOKGRAPH_SERVER_EXPLORER_H_
#define COOKGRAPH_SERVER_EXPLORER_H_

// What `cookgraph serve` shows, as the JSON documents of its API
// (docs/commands.md#cookgraph-serve): one or more analysed inputs ("views"), each with
// its network one container at a time, its nodes, frames, timelines and
// findings; the comparison of two; and the live view of `watch --serve`,
// whose data is replaced while pages read it.
//
// Thread-safe: requests run on the HTTP server's threads and read an
// immutable Dataset; Replace() swaps in a new one.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/conversation.h"
#include "advisor/findings.h"
#include "advisor/judge.h"
#include "advisor/pack.h"
#include "advisor/tools.h"
#include "base/error.h"
#include "graph/containers.h"
#include "metrics/analysis.h"
#include "metrics/diff.h"
#include "model/snapshot.h"
#include "metrics/whatif.h"

namespace cookgraph::server {

/// One analysed input: the snapshot judged by its knowledge pack (Judged's
/// snapshot, analysis, pack (the prompt's guidelines), findings and gains) and
/// what the explorer derives from it. A View stays where it is made (no copy,
/// no move): its what-if model and its functions point into it.
struct View : Judged {
  View() = default;
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  std::string file;  // as the user named it
  /// Per node, the container the explorer shows it in: its parent; for a
  /// trace (no parents), its caller in the call tree (Prepare).
  std::vector<std::string> parents;
  std::vector<Container> containers;  // of those parents
  std::vector<NodeIndex> rank;        // Rank(analysis, kScore)
  /// The what-if model of `snapshot` (docs/architecture.md#what-if-predicted-gains),
  /// built once by Prepare; its Predict is const and keeps no state, so the
  /// server's threads share it.
  std::unique_ptr<const WhatIf> whatif;

  /// The functions the ask box's model may call over this view
  /// (docs/architecture.md#tools-the-model-can-call), built on first use (a
  /// live view that is never asked about never builds them). Safe to call and
  /// to Run from several threads at once; call it once the view is final.
  const AnalysisTools& tools() const;

 private:
  mutable std::once_flag tools_once_;
  mutable std::unique_ptr<const AnalysisTools> tools_;
};

/// Fills a View's derived parts (parents, containers, ranking, the what-if
/// model). Call it once `snapshot` and `analysis` are final.
void Prepare(View& view);

/// A view of `judged` (an input the pipeline read and judged, pipeline/pipeline.h),
/// prepared.
std::shared_ptr<const View> MakeView(std::string file, Judged judged);

/// Everything the server shows at one moment.
struct Dataset {
  std::vector<std::shared_ptr<const View>> views;
  /// With two inputs (`serve BEFORE AFTER`): views[1] against views[0].
  std::optional<SnapshotDiff> diff;
  bool live = false;                 // `watch --serve`
  uint64_t version = 0;              // grows with every Replace()
  std::vector<std::string> alerts;   // live: the recent alerts, newest last
  std::string status;                // live: one line on the stream
};

/// A request as the ask box shows it before sending: the first request of
/// the next turn after the thread the page holds.
struct PromptPreview {
  std::string text;  // every message, with its role, then the functions offered
  size_t tokens = 0;  // the request's count (advisor/conversation.h's CountRequestTokens)
  size_t budget_tokens = 0;
  std::string model;
  size_t earlier_sent = 0;      // earlier turns in the request
  size_t earlier_left_out = 0;  // the oldest left out for the budget
  size_t tools = 0;             // functions offered
};

/// What the ask box is told while an answer comes. Each returns false when the
/// page has gone: the answer is then stopped.
struct AskEvents {
  /// Each piece of answer text (already free of the key). A `on_tool` after
  /// pieces means they were the model's words before calling: the answer is
  /// what comes after the last call.
  std::function<bool(std::string_view text)> on_piece;
  /// Each function the model called, once it ran: its name and its arguments
  /// as the model wrote them (free of the key).
  std::function<bool(std::string_view name, std::string_view arguments)> on_tool;
};

/// How an answer ended.
struct AskSummary {
  std::vector<std::string> nodes;  // the nodes its functions looked at (NodesLookedAt)
  size_t tokens = 0;               // the largest request's count
  size_t earlier_left_out = 0;     // earlier turns left out for the budget (the most of any request)
  size_t requests = 0;
  size_t tool_calls = 0;
};

/// How the ask box reaches the LLM: given by the command line, which owns the
/// settings and the key (the key never reaches the server's pages). The
/// server keeps no conversation: the page sends its thread, `history`, with
/// each question (docs/commands.md#the-explorers-api).
struct AskHooks {
  /// "" when an endpoint is configured; else how to configure one.
  std::string not_configured;
  std::function<Result<PromptPreview>(const View&, const std::string& question,
                                      const std::vector<Turn>& history)>
      preview;
  /// Answers `question` as the turn after `history`. `stop` is set by the
  /// server when the page has gone or the server stops, and by the hook when
  /// an event returns false; once set the request ends (an Error whose where is
  /// kStoppedWhere).
  std::function<Result<AskSummary>(const View&, const std::string& question,
                                   const std::vector<Turn>& history, const AskEvents& events,
                                   std::atomic<bool>& stop)>
      ask;
};

class Explorer {
 public:
  explicit Explorer(Dataset data, AskHooks hooks = {});

  /// The current data (never null).
  std::shared_ptr<const Dataset> data() const;
  /// Swaps in new data; the version grows by one.
  void Replace(Dataset data);
  uint64_t version() const;

  const AskHooks& hooks() const { return hooks_; }

  // The API's documents (docs/commands.md#the-explorers-api). An Error's message is
  // the reason a page shows; `where` is "not found" for unknown names.
  std::string IndexJson() const;
  Result<std::string> SummaryJson(size_t view) const;
  Result<std::string> GraphJson(size_t view, std::string_view container) const;
  Result<std::string> NodeJson(size_t view, std::string_view id) const;
  Result<std::string> SearchJson(size_t view, std::string_view query) const;
  Result<std::string> FramesJson(size_t view) const;
  Result<std::string> TimelineJson(size_t view, size_t frame) const;
  /// The ranked nodes by `sort` (a SortKey name), the first `top` (1 to
  /// kMaxNodeRows) of them.
  Result<std::string> NodesJson(size_t view, std::string_view sort, size_t top) const;
  /// The frame times predicted if node `id` cooked `factor` times as long
  /// (ParseWhatIfFactor's text), next to the measured ones.
  Result<std::string> WhatIfJson(size_t view, std::string_view id, std::string_view factor) const;
  Result<std::string> FindingsJson(size_t view) const;
  Result<std::string> DiffJson() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Dataset> data_;
  AskHooks hooks_;
};

/// A document of the explorer's API with its HTTP status; an error's body is
/// {"error": message}.
struct ApiReply {
  int status = 200;
  std::string body;
};

/// What /api/v/N/<what> answers for `view` (docs/commands.md#the-explorers-api),
/// `what` one of summary, graph, node, nodes, search, frames, timeline,
/// findings, whatif; `param(name)` is the query's value of `name` ("" when
/// absent). The server's routes and the page's worker (web/) both answer with
/// it; a parameter given twice is the server's to refuse.
ApiReply ViewDocument(const Explorer& explorer, size_t view, std::string_view what,
                      const std::function<std::string(const char* name)>& param);

/// The view number of /api/v/N/...; nullopt when it is not a small number.
std::optional<size_t> ViewNumber(std::string_view text);

/// Error::where of the lookups that found nothing (HTTP 404).
inline constexpr const char* kNotFound = "not found";

/// The most rows NodesJson gives at once.
inline constexpr size_t kMaxNodeRows = 5000;

/// The largest what-if factor: a node ten times as slow.
inline constexpr double kMaxWhatIfFactor = 10;

/// A what-if factor as the API takes it: a decimal number from 0 (the node
/// removed) to kMaxWhatIfFactor, written in full ("0.5", "1", "2e-1"; no
/// sign, space, "nan" or "inf"). The Error's message starts "factor: " and gives the range.
Result<double> ParseWhatIfFactor(std::string_view text);

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_EXPLORER_H_
