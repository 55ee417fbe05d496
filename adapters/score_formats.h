#ifndef COOKGRAPH_ADAPTERS_SCORE_FORMATS_H_
#define COOKGRAPH_ADAPTERS_SCORE_FORMATS_H_

// Internal to adapters/: not a public header, include it only from the score
// writers' .cc files. One snapshot's fragment in each format of `cookgraph
// score`; score_writers.cc picks one and adds what goes around the fragments.

#include <string>

#include "adapters/score_writers.h"

namespace cookgraph::score_internal {

/// One snapshot as an object of the "snapshots" array (score_json_csv.cc).
std::string JsonFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// The CSV header row, ending in "\n" (score_json_csv.cc).
std::string CsvHeader(const ScoreOptions& options);

/// One snapshot's CSV rows (score_json_csv.cc).
std::string CsvFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// One snapshot as a title, an aligned table and its sections (score_table.cc).
std::string TableFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

/// One snapshot as a Markdown heading, table and sections (score_table.cc).
std::string MarkdownFragment(const ScoredSnapshot& scored, const ScoreOptions& options);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_ADAPTERS_SCORE_FORMATS_H_
