#ifndef COOKGRAPH_WRITERS_SCORE_COLUMNS_H_
#define COOKGRAPH_WRITERS_SCORE_COLUMNS_H_

// Not a public header: include it only from the .cc files of writers that
// must write cells exactly as `score` does (the score formats, the summary,
// the history's formats, the explorer's API). The rows of `cookgraph score`:
// one list of columns and one way to fill them (for JSON and CSV), the ranking
// that --top cuts, and the number formatting shared by all formats, so that the
// formats cannot drift apart.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/json_writer.h"
#include "metrics/analysis.h"
#include "metrics/rollup.h"
#include "model/snapshot.h"
#include "writers/score.h"

namespace cookgraph::score_internal {

// ---------------------------------------------------------------------------
// Columns and their values, shared by JSON and CSV.

// The latency_* columns are the tracer's own times where avg_ms is the work
// alone (GStreamer), null elsewhere; inclusive_avg_ms the time with the calls
// made where avg_ms is self time (Chrome traces), null elsewhere.
inline constexpr std::array<std::string_view, 26> kNodeColumns = {
    "id",          "type",          "family",           "rank",           "score",
    "avg_ms",      "std_ms",        "p50_ms",           "p95_ms",         "p99_ms",
    "max_ms",      "per_frame_ms",  "share",            "cooked_frames",  "cooks_per_frame",
    "gpu_avg_ms",  "cpu_mem_mb",    "gpu_mem_mb",       "upstream_ms",    "loop",
    "on_critical_path", "dead",     "latency_avg_ms",   "latency_std_ms", "latency_max_ms",
    "inclusive_avg_ms"};

// The columns `--baseline` adds to a node (CSV: after kNodeColumns; JSON: the
// node's "baseline" object, null for a node the baseline does not have).
inline constexpr std::array<std::string_view, 12> kBaselineColumns = {
    "baseline_avg_ms", "baseline_p95_ms", "baseline_per_frame_ms", "baseline_score",
    "avg_change_pct",  "p95_change_pct",  "per_frame_change_pct",  "score_change_pct",
    "p_value",         "regression",      "improvement",           "baseline_note"};

// The JSON keys of a container; CSV calls the first one "container".
inline constexpr std::array<std::string_view, 9> kContainerColumns = {
    "id",    "depth",  "nodes",    "cooked_nodes", "per_frame_ms", "self_per_frame_ms",
    "share", "max_ms", "costliest"};

// monostate = null (JSON null, empty CSV cell). A non-finite double is null too.
using Value = JsonValue;

/// `flags[n]`, false past the end.
bool FlagAt(const std::vector<bool>& flags, NodeIndex n);
/// `values[n]`, 0 past the end.
double ValueAt(const std::vector<double>& values, NodeIndex n);
/// The number, or an empty Value (written as null, or as an empty cell) when absent.
Value Optional(const std::optional<double>& v);

/// The values of kNodeColumns for node `n`; `rank` is nullopt for a node that never cooked.
void NodeValues(const Snapshot& snapshot, const Analysis& analysis, NodeIndex n,
                std::optional<size_t> rank, std::vector<Value>& out);

/// The comparison of node `n` with the baseline; nullptr when there is no
/// baseline or the baseline does not have the node.
const NodeDiff* BaselineOf(const ScoredSnapshot& scored, NodeIndex n);

/// The values of kBaselineColumns for `d` (all null when `d` is nullptr).
void BaselineValues(const NodeDiff* d, std::vector<Value>& out);

/// The values of kContainerColumns for `c`.
void ContainerValues(const ContainerStats& c, std::vector<Value>& out);

/// Appends one CSV cell: RFC 4180 quoting, and a text that a spreadsheet would
/// take for a formula quoted with a leading ' (score_csv.cc).
void AppendCsvField(std::string& out, std::string_view s);
void AppendCsvValue(std::string& out, const Value& v);

// ---------------------------------------------------------------------------
// Which rows, in which order.

/// The rows of one snapshot: the ranking, how many of its leading entries cooked,
/// and how many rows --top keeps.
struct Selection {
  std::vector<NodeIndex> order;
  size_t cooked = 0;
  size_t shown = 0;
};

/// How many of `total` rows --top keeps (`top` 0 = all).
size_t Shown(size_t total, size_t top);

/// The nodes of one snapshot by `options.sort`, cut by `options.top`.
Selection SelectNodes(const Analysis& analysis, const ScoreOptions& options);

/// The rank shown at `position` (1-based); nullopt for a node that never cooked.
std::optional<size_t> RankAt(const Selection& s, size_t position);

// ---------------------------------------------------------------------------
// Numbers.

/// Appends the shortest text that reads back as the same number (std::to_chars:
/// no locale, no allocation); nothing for a non-finite double.
void AppendNumber(std::string& out, double v);
void AppendNumber(std::string& out, uint64_t v);
void AppendNumber(std::string& out, int64_t v);

/// `v` with `decimals` digits after the point; "-" for a non-finite value.
std::string Fixed(double v, int decimals);
/// Milliseconds with three decimals.
std::string Ms(double v);
/// A fraction as a percentage with one decimal ("12.5%").
std::string Percent(double fraction);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_SCORE_COLUMNS_H_
