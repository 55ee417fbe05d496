#ifndef COOKGRAPH_PIPELINE_SCORE_H_
#define COOKGRAPH_PIPELINE_SCORE_H_

// One input of a batch scored: read, analysed, judged where a summary counts
// findings, compared with the baseline, and turned into what the front end
// asked for (docs/commands.md#cookgraph-score). `cookgraph score`,
// cookgraph.score() in Python and cookgraph.score() in the page make each
// input's result here, one input per work item of the batch pool.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "advisor/pack.h"
#include "pipeline/pipeline.h"
#include "writers/score.h"
#include "writers/summary.h"

namespace cookgraph::pipeline {

/// The snapshot every input of a batch is compared with (`--baseline`):
/// read and analysed once, then only read by the workers.
struct Baseline {
  std::string file;  // as given
  Snapshot snapshot;
  Analysis analysis;
};

/// Reads and analyses `file` with the batch's options.
Result<Baseline> ReadBaseline(const std::string& file, const ReadOptions& read,
                              const AnalysisOptions& options);

/// Knowledge packs by engine, each loaded once per batch and shared by its
/// workers.
class PackCache {
 public:
  /// The engine's built-in pack, or its loading Error.
  const Result<KnowledgePack>& For(const std::string& engine);

 private:
  std::mutex mutex_;
  std::map<std::string, Result<KnowledgePack>> packs_;
};

/// What to make of each input.
struct ScoreRequest {
  ReadOptions read;
  AnalysisOptions analysis;
  ScoreOptions options;  // the text's and the rows' (sort, top, grouping, baseline file)
  /// The input's fragment of the document in this format, in pieces
  /// (RenderScoreSnapshotPieces).
  std::optional<ScoreFormat> format;
  /// ScoreRows with these options: `options` for Python's DataFrame, every
  /// node by score for the history store. Compared with the baseline when
  /// their baseline_file is set.
  std::optional<ScoreOptions> rows;
  /// The one-row summary (writers/summary.h) with the findings of the
  /// engine's built-in pack counted.
  bool summary = false;
  const Baseline* baseline = nullptr;
  PackCache* packs = nullptr;  // with `summary`
  /// The input's snapshot and analysis are left for the process's exit to
  /// reclaim, never freed (clang's -disable-free): for a process that exits
  /// after this input, as `cookgraph score` with one input does. Freeing a
  /// 100k-node snapshot's millions of blocks took about a tenth of a second.
  bool leave_to_exit = false;
};

/// What one input made.
struct ScoredInput {
  Outcome outcome;
  TextPieces text;                    // with ScoreRequest::format
  std::optional<ScoreTable> rows;     // with ScoreRequest::rows
  SnapshotSummary summary;            // with ScoreRequest::summary
  std::vector<std::string> warnings;  // the reader's and the analysis's
};

/// Scores `input`. Never throws: running out of memory or an exception is an
/// internal Failure naming the input, and the batch goes on.
ScoredInput ScoreInput(const Input& input, const ScoreRequest& request);

/// The line under the score table's title (docs/commands.md#cookgraph-score):
/// the change that pays most by the what-if model, over-budget frames saved
/// first, as the report's "What to change first"; "" when no change saves time.
std::string FirstFixLine(const Snapshot& snapshot, const Analysis& analysis);

}  // namespace cookgraph::pipeline

#endif  // COOKGRAPH_PIPELINE_SCORE_H_
