#ifndef COOKGRAPH_WRITERS_DIFF_FORMATS_H_
#define COOKGRAPH_WRITERS_DIFF_FORMATS_H_

// Output of `cookgraph diff`: an aligned table, JSON, CSV or Markdown; and the few
// formatting helpers that `score --baseline` and `report --baseline` share with
// it, so that a change reads the same everywhere.

#include <cstddef>
#include <optional>
#include <string>

#include "metrics/diff.h"
#include "model/snapshot.h"
#include "writers/score.h"

namespace cookgraph {

enum class DiffFormat : uint8_t { kTable, kJson, kMarkdown, kCsv };

/// The two inputs and their comparison. References must outlive the call.
struct DiffInput {
  const std::string& before_file;  // paths as given ("-" for standard input)
  const std::string& after_file;
  const Snapshot& before;
  const Snapshot& after;
  const SnapshotDiff& diff;
};

struct DiffRenderOptions {
  /// Node rows of the table and Markdown; 0 = all. Regressions and
  /// improvements are always shown. JSON and CSV always list every node.
  size_t top = 20;
};

std::string RenderDiff(DiffFormat format, const DiffInput& input, const DiffRenderOptions& options);

/// The columns and rows that `diff --format csv` writes, as values (the same
/// typed table as ScoreRows): a row per matched node in the diff's order
/// (status "matched"), then a row per added node ("added", AFTER's order) and
/// per removed one ("removed", BEFORE's order), whose statistics are empty.
/// What the Python module's diff() reads, so that it cannot drift from the CSV.
ScoreTable DiffRows(const DiffInput& input);

/// A percent change with its sign and one decimal ("+30.1%", "-2.0%", "+0.0%");
/// "-" when there is none.
std::string ChangeText(std::optional<double> pct);

/// A p-value: four decimals from 0.0001 up, else two significant digits in
/// scientific notation ("3.2e-07"), "0" for exactly 0; "-" when there is none.
std::string PValueText(std::optional<double> p);

/// "regression", "improvement", the note when there is no test, or "".
std::string Verdict(const NodeDiff& d);

/// One line on the frame time: "mean 12.000 → 13.000 ms (+8.3%), p95 ... ; p = ...".
std::string FrameChangeText(const FrameDiff& f);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_DIFF_FORMATS_H_
