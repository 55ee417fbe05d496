#include "writers/score.h"

#include "base/text.h"
#include "writers/score_internal.h"

// The four formats share one list of columns (score_columns.h) and the table and
// Markdown one row model (score_table_rows.h), so that JSON, CSV, the table and
// Markdown cannot drift apart. This file only picks the format.

namespace cookgraph {

using score_internal::CsvFragment;
using score_internal::CsvHeader;
using score_internal::JsonFragment;
using score_internal::MarkdownFragment;
using score_internal::TableFragment;

std::string RenderScoreHeader(ScoreFormat format, const ScoreOptions& options,
                              std::string_view extra) {
  switch (format) {
    case ScoreFormat::kJson:
      return "{\"cookgraph\":1," + std::string(extra) + "\"snapshots\":[";
    case ScoreFormat::kCsv:
      return CsvHeader(options);
    case ScoreFormat::kTable:
    case ScoreFormat::kMarkdown:
      break;
  }
  return {};
}

std::string_view RenderScoreSeparator(ScoreFormat format) {
  switch (format) {
    case ScoreFormat::kJson:
      return ",";
    case ScoreFormat::kCsv:
      return "";
    case ScoreFormat::kTable:
    case ScoreFormat::kMarkdown:
      return "\n";
  }
  return "";
}

TextPieces RenderScoreSnapshotPieces(ScoreFormat format, const ScoredSnapshot& scored,
                                     const ScoreOptions& options) {
  TextPieces pieces;
  switch (format) {
    case ScoreFormat::kJson:
      pieces = JsonFragment(scored, options);
      pieces.insert(pieces.begin(), "\n");
      break;
    case ScoreFormat::kCsv:
      pieces.push_back(CsvFragment(scored, options));
      break;
    case ScoreFormat::kTable:
      pieces.push_back(TableFragment(scored, options));
      break;
    case ScoreFormat::kMarkdown:
      pieces.push_back(MarkdownFragment(scored, options));
      break;
  }
  return pieces;
}

std::string RenderScoreSnapshot(ScoreFormat format, const ScoredSnapshot& scored,
                                const ScoreOptions& options) {
  TextPieces pieces = RenderScoreSnapshotPieces(format, scored, options);
  if (pieces.size() == 1) return std::move(pieces.front());
  size_t size = 0;
  for (const std::string& piece : pieces) size += piece.size();
  std::string text;
  text.reserve(size);
  for (const std::string& piece : pieces) text += piece;
  return text;
}

std::string RenderScoreFooter(ScoreFormat format, const std::vector<Error>& errors) {
  if (format != ScoreFormat::kJson) return {};
  std::string out = "\n],\"errors\":[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"file\":";
    AppendJsonString(out, errors[i].file);
    out += ",\"message\":";
    AppendJsonString(out, errors[i].Format());
    out += '}';
  }
  out += "]}\n";
  return out;
}

}  // namespace cookgraph
