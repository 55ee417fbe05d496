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

std::string RenderScoreSnapshot(ScoreFormat format, const ScoredSnapshot& scored,
                                const ScoreOptions& options) {
  switch (format) {
    case ScoreFormat::kJson:
      return "\n" + JsonFragment(scored, options);
    case ScoreFormat::kCsv:
      return CsvFragment(scored, options);
    case ScoreFormat::kTable:
      return TableFragment(scored, options);
    case ScoreFormat::kMarkdown:
      return MarkdownFragment(scored, options);
  }
  return {};
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
