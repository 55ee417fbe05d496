#ifndef COOKGRAPH_WRITERS_SCORE_H_
#define COOKGRAPH_WRITERS_SCORE_H_

// Output of `cookgraph score`: an aligned table, JSON, CSV or Markdown.
// Each snapshot renders to a self-contained fragment so that a batch can be
// written in input order while later files are still being scored.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/error.h"
#include "metrics/analysis.h"
#include "metrics/diff.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class ScoreFormat : uint8_t { kTable, kJson, kCsv, kMarkdown };

struct ScoreOptions {
  SortKey sort = SortKey::kScore;
  size_t top = 0;                   // rows per snapshot; 0 = all
  bool group_by_container = false;  // rows are containers (metrics/rollup.h), not nodes
  bool color = false;               // ANSI colours in the table (terminal only)
  /// `--baseline FILE`: every snapshot comes with its comparison against FILE
  /// (ScoredSnapshot::baseline) and the rows get the change columns. "" = none.
  std::string baseline_file;
};

/// One scored input. `file` is the path as given ("-" for standard input).
struct ScoredSnapshot {
  const std::string& file;
  const Snapshot& snapshot;
  const Analysis& analysis;
  /// The comparison with the baseline when ScoreOptions::baseline_file is set.
  const SnapshotDiff* baseline = nullptr;
  std::string_view baseline_file = {};  // its path as given
  /// The table's and Markdown's line under the title: the change that pays
  /// most, "ID: removing or caching it saves 15 of 15 over-budget frames and
  /// ~1.12 ms per frame; …" (the CLI's, from advisor/gains.h); "" = none.
  std::string_view first_fix = {};
};

/// The text before the first snapshot's fragment: the CSV header row, the JSON
/// document's opening (with `extra`, a member and its comma such as a shard's
/// record, after "cookgraph":1); empty for table and Markdown.
std::string RenderScoreHeader(ScoreFormat format, const ScoreOptions& options,
                              std::string_view extra = {});

/// One snapshot's fragment. Fragments are rendered independently (by worker
/// threads, in any order) and written in input order.
std::string RenderScoreSnapshot(ScoreFormat format, const ScoredSnapshot& scored,
                                const ScoreOptions& options);

/// A fragment as the pieces it was written in, to be written out one after
/// the other: a 100k-node snapshot's JSON (58 MB, its nodes written in two
/// halves on two cores) grown as two strings and joined took the run's peak
/// from 904 to 964 MiB.
using TextPieces = std::vector<std::string>;
/// RenderScoreSnapshot's text in pieces: what a caller that writes the
/// fragment out (the CLI, the page) takes.
TextPieces RenderScoreSnapshotPieces(ScoreFormat format, const ScoredSnapshot& scored,
                                     const ScoreOptions& options);

/// What goes between two fragments: "," for JSON, a blank line for the table
/// and Markdown, nothing for CSV.
std::string_view RenderScoreSeparator(ScoreFormat format);

/// The text after the last fragment: for JSON, the end of "snapshots", the
/// "errors" array and the closing brace; empty otherwise.
std::string RenderScoreFooter(ScoreFormat format, const std::vector<Error>& errors);

/// One cell of ScoreRows: monostate is an empty CSV cell (JSON null; a
/// non-finite number is one too).
using ScoreValue = std::variant<std::monostate, std::string, double, uint64_t, int64_t, bool>;

/// The columns and rows that `score --format csv` writes for one snapshot, as
/// values rather than text: what the Python module's `nodes()` and the history
/// store (`--store`) read, so that they cannot drift from the CSV.
struct ScoreTable {
  std::vector<std::string> columns;  // the CSV header's names
  std::vector<std::vector<ScoreValue>> rows;
};
ScoreTable ScoreRows(const ScoredSnapshot& scored, const ScoreOptions& options);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_SCORE_H_
