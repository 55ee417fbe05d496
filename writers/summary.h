#ifndef COOKGRAPH_WRITERS_SUMMARY_H_
#define COOKGRAPH_WRITERS_SUMMARY_H_

// `score --format summary` (and summary-csv, summary-json): one row per
// snapshot, for batches of many (docs/commands.md#one-row-per-snapshot). The
// same row is what the history store keeps of each run (store/).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

struct SnapshotSummary {
  std::string file;  // the path as given ("-" for standard input)
  std::string name, engine;
  size_t frames = 0;  // the counted frames (FrameSummary::counted)
  /// Frame (or step) time over the counted frames; nullopt when there are none.
  std::optional<double> frame_mean_ms, frame_p95_ms, frame_max_ms;
  /// Sample standard deviation (n - 1) of the frame time; nullopt below 2 frames.
  /// Not shown in the summary; the history's Welch test needs it.
  std::optional<double> frame_std_ms;
  std::optional<double> budget_ms;          // nullopt: steps without a budget
  std::optional<double> over_budget_share;  // frames over the budget / counted; nullopt without one
  std::string top_node;                     // rank 1 by score; "" when nothing cooked
  std::optional<double> top_node_share;     // its share of the mean frame time
  size_t loops = 0;
  size_t critical = 0, warnings = 0, info = 0;  // findings by severity
  std::string error;  // the one-line message of a snapshot that could not be scored; "" = scored
};

/// Everything but the findings counts, which the advisor's caller fills.
SnapshotSummary Summarise(const std::string& file, const Snapshot& snapshot,
                          const Analysis& analysis);

enum class SummaryFormat : uint8_t { kTable, kCsv, kJson };

/// The summary's column names, in order (CSV header, JSON keys, table columns).
const std::vector<std::string>& SummaryColumns();

/// CSV: the header row; JSON: the document's opening, `{"cookgraph":1,` then
/// `extra` (a JSON member such as the shard record, with its comma, or "")
/// then `"summary":[`; table: nothing (the table is drawn at the end).
std::string RenderSummaryHeader(SummaryFormat format, std::string_view extra = {});
/// One row: a CSV line, or a JSON object on a line of its own (the caller puts
/// "," between rows). Not for the table.
std::string RenderSummaryRow(SummaryFormat format, const SnapshotSummary& row);
/// JSON: "\n]}\n"; CSV: nothing.
std::string RenderSummaryFooter(SummaryFormat format);
/// The aligned table of all rows, with a header line.
std::string RenderSummaryTable(const std::vector<SnapshotSummary>& rows);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_SUMMARY_H_
