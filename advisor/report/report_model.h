#ifndef COOKGRAPH_ADVISOR_REPORT_REPORT_MODEL_H_
#define COOKGRAPH_ADVISOR_REPORT_REPORT_MODEL_H_

// Internal to advisor/: include it only from the report's and the prompt's .cc
// files. What the HTML and the Markdown report (and the prompt) show, chosen
// and formatted once, so that they cannot drift apart. Strings here are raw input text: each renderer escapes
// them for its own format.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/report/report_renderers.h"
#include "graph/network.h"

namespace cookgraph::report_internal {

/// How many loops, path nodes, finding nodes and ids both reports list before
/// "and N more".
inline constexpr size_t kListLimit = 50;

/// One row of the top-nodes table.
struct TopRow {
  size_t rank = 0;  // 1-based, by score (as `cookgraph score` ranks)
  NodeIndex node = 0;
};

/// One row of the per-family breakdown.
struct FamilyRow {
  std::string family;  // "" = not given
  size_t nodes = 0;
  size_t cooked_nodes = 0;
  double per_frame_ms = 0;  // sum over the family's nodes
  double share = 0;         // per_frame_ms / mean frame time
};

/// Whether any node has GPU time (a gpu_ms series): the node tables then
/// show GPU per frame and its share beside the cook time.
bool HasGpu(const Analysis& analysis);
/// The GPU cells of `n`: GPU ms per frame and its share ("-" each without).
std::vector<std::string> GpuCells(const Analysis& analysis, NodeIndex n);

/// The top `top` cooked nodes by score.
/// One row of the streaming-threads table (GStreamer recordings): every
/// cell as text, "-" where unknown.
struct ThreadRow {
  std::string thread;  // with " (bottleneck)" on the bottleneck
  std::vector<NodeIndex> elements;
  std::vector<bool> work;
  std::string work_ms, period_ms, utilisation, cpu_load, buffers;
  std::optional<NodeIndex> costliest;
};
std::vector<ThreadRow> ThreadRows(const Streaming& streaming);
/// "80 records: mean 29.166 ms, p95 90.883 ms, max 90.960 ms", or "" without
/// latency records.
std::string LatencyLine(const Streaming& streaming);

std::vector<TopRow> TopRows(const Analysis& analysis, size_t top);

/// Every family, costliest first (ties by name).
std::vector<FamilyRow> FamilyRows(const Snapshot& snapshot, const Analysis& analysis);

/// The rows of the comparison section: every regression and improvement, then
/// the other matched nodes in the diff's order (largest per-frame rise first)
/// up to `top` rows in all.
std::vector<const NodeDiff*> ComparisonRows(const SnapshotDiff& diff, size_t top);

/// How many nodes "What pays to fix" lists.
inline constexpr size_t kGainRows = 5;

/// The gain column's cell of `n`: its Analysis::gain_ms in ms.
std::string GainCell(const Analysis& analysis, NodeIndex n);

/// The gain column's header tooltip: "predicted mean frame ms saved if this
/// node cooked twice as fast", in the engine's word (SnapshotInfo::frame_word).
std::string GainTitle(std::string_view unit);

/// The line under "What pays to fix": the model, and what the table says.
/// `frames_first`: the rows are ranked by over-budget frames first (TopGains).
std::string WhatPaysLine(const WhatIf& whatif, std::string_view unit, bool frames_first);

/// The cells of a saving in "What pays to fix": mean ms, p95 ms and, with a
/// `budget`, the over-budget frames saved ("-3": three more); "-" each
/// without a saving.
std::vector<std::string> SavingCells(const std::optional<Saving>& saving, bool budget);

/// "loop", "critical", "dead" joined by ", " ("" when none).
std::string Flags(const Analysis& analysis, NodeIndex n);

/// `n` and the noun for it: "1 finding", "2 findings", "0 findings"; `plural`
/// for a noun that does not just add an "s" ("launch", "launches").
/// "step" → "Step".
std::string Capitalised(std::string_view word);
std::string Counted(size_t n, std::string_view singular, std::string_view plural = {});

/// The top-nodes table's "The 20 costliest" ("The costliest" for one row).
std::string Costliest(size_t shown);

/// Milliseconds with three decimals ("4.358"); "-" when not finite.
std::string Ms(double v);

/// A trace's event critical path in one sentence (plain text, not escaped):
/// the step, its length against the step's, how many events and on the GPU.
std::string EventPathHeadline(const StepPath& path);
/// A fraction as a percentage with one decimal ("26.0%").
std::string Percent(double fraction);
/// A finding's number: at most three decimals, trailing zeros dropped ("0.26", "15").
std::string Number(double v);

/// The one-line heading of the report: "<engine> snapshot <name>", or the file
/// when the snapshot has no name.
std::string Title(const ReportInput& input);

/// The id of `n`.
const std::string& Id(const Snapshot& snapshot, NodeIndex n);

/// The findings as the report shows them: each rule's findings as one, at the
/// place of its first (the findings come ordered by what their fixes save):
/// per group, the indices into `findings`, in their order.
std::vector<std::vector<size_t>> FoldFindings(const std::vector<Finding>& findings);

/// The heading of a group: the first finding's title and, for a group of
/// several, ", and N more like it".
std::string FoldedTitle(const std::vector<Finding>& findings, const std::vector<size_t>& group);

/// A folded finding after the first, in a few words (plain text): its first
/// node, its per-frame ms where its evidence has it, and what its fix saves:
/// "/p/blur_preview (1.119 ms per frame; its fix saves ~0.84 ms)".
std::string FoldedMember(const Snapshot& snapshot, const Finding& f);

/// "What to change first": up to `count` rows of the top gains (advisor/gains.h,
/// over-budget frames first where frames go over the budget), each with the
/// findings about its node (those that name it first).
struct FirstFix {
  const PredictedGain* gain = nullptr;
  std::vector<const Finding*> why;
  const Finding* snippet = nullptr;  // the first of `why` with a snippet; nullptr = none
};
std::vector<FirstFix> FirstFixes(const ReportInput& in, size_t count);
inline constexpr size_t kFirstFixes = 3;


}  // namespace cookgraph::report_internal

#endif  // COOKGRAPH_ADVISOR_REPORT_REPORT_MODEL_H_
