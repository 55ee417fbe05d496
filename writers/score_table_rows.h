#ifndef COOKGRAPH_WRITERS_SCORE_TABLE_ROWS_H_
#define COOKGRAPH_WRITERS_SCORE_TABLE_ROWS_H_

// Internal to adapters/: not a public header, include it only from the score
// writers' .cc files. The table and Markdown of `cookgraph score` share one row
// model (TextTable, the title line and the sections below the table) and differ
// only in how they render it (score_table.cc).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "writers/score.h"

namespace cookgraph::score_internal {

enum class Tone : uint8_t { kPlain, kDim, kRed, kYellow };

struct Cell {
  std::string text;  // raw: made printable, truncated or escaped when rendered
  Tone tone = Tone::kPlain;
};

struct Column {
  std::string_view title;
  bool right = true;     // numbers are right-aligned
  size_t max_width = 0;  // for the terminal table: cut longer text in the middle; 0 = no limit
};

struct TextTable {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::string more;  // line after the table when --top cut rows; "" = none
};

// Columns of node and container ids in the terminal table, in display columns.
inline constexpr size_t kIdWidth = 48;

/// The ranked nodes of one snapshot, cut by --top.
TextTable NodeTable(const ScoredSnapshot& scored, const ScoreOptions& options);

/// The containers of one snapshot (--group-by container), cut by --top.
TextTable ContainerTable(const ScoredSnapshot& scored, const ScoreOptions& options);

/// Renders free text from the input for one format (printable, escaped).
using TextFn = std::function<std::string(std::string_view)>;

/// The title line's parts: file, engine, name, frames, frame time against the budget,
/// the profiler's own time when the input has it.
std::vector<std::string> TitleParts(const ScoredSnapshot& scored, const TextFn& text);

struct Section {
  std::string title;
  std::vector<std::string> items;
};

/// Loops, critical path, spikes and warnings, with ids rendered by `id` and free
/// text by `text`. Empty sections are left out.
std::vector<Section> Sections(const ScoredSnapshot& scored, const TextFn& id, const TextFn& text);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_SCORE_TABLE_ROWS_H_
