#ifndef COOKGRAPH_WRITERS_SCORE_INTERNAL_H_
#define COOKGRAPH_WRITERS_SCORE_INTERNAL_H_

// Internal to writers/: not a public header, include it only from the score
// writers' .cc files. One snapshot's fragment in each format of `cookgraph
// score`; score.cc picks one and adds what goes around the fragments.

#include <string>
#include <vector>

#include "writers/score.h"

namespace cookgraph::score_internal {

/// One snapshot as an object of the "snapshots" array (score_json.cc), in
/// pieces: a large one's nodes are written in two halves, kept apart.
TextPieces JsonFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// The CSV header's column names (score_csv.cc).
std::vector<std::string> CsvColumns(const ScoreOptions& options);

/// The CSV header row, ending in "\n" (score_csv.cc).
std::string CsvHeader(const ScoreOptions& options);

/// One snapshot's CSV rows (score_csv.cc).
std::string CsvFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// One snapshot as a title, an aligned table and its sections (score_table.cc).
std::string TableFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// One snapshot as a Markdown heading, table and sections (score_markdown.cc).
std::string MarkdownFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_SCORE_INTERNAL_H_
