#include <fmt/format.h>

#include <string>
#include <vector>

#include "base/text.h"
#include "writers/score_internal.h"
#include "writers/score_table_rows.h"

// `score --format md`: GitHub Markdown, a heading, a table and the sections of
// each snapshot; the row model is the aligned table's (score_table_rows.h).

namespace cookgraph::score_internal {
namespace {

void RenderMarkdownTable(const TextTable& t, std::string& out) {
  out += '|';
  for (const Column& c : t.columns) out += fmt::format(" {} |", c.title);
  out += "\n|";
  for (const Column& c : t.columns) out += c.right ? " ---: |" : " :--- |";
  out += '\n';
  for (const std::vector<Cell>& row : t.rows) {
    out += '|';
    for (const Cell& cell : row) out += " " + MarkdownText(cell.text) + " |";
    out += '\n';
  }
  if (!t.more.empty()) out += "\n" + t.more + "\n";
}

}  // namespace

std::string MarkdownFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  auto text = [](std::string_view s) { return MarkdownText(s); };
  std::string out;
  out += "### " + MarkdownText(scored.file) + "\n\n";
  const std::vector<std::string> parts = TitleParts(scored, text);
  for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? " · " : "") + parts[i];
  out += "\n\n";
  if (!scored.first_fix.empty()) {
    out += "**What to change first**: " + MarkdownText(scored.first_fix) + "\n\n";
  }
  RenderMarkdownTable(
      options.group_by_container ? ContainerTable(scored, options) : NodeTable(scored, options),
      out);
  for (const Section& s : Sections(scored, text, text)) {
    out += "\n**" + s.title + "**\n\n";
    for (const std::string& item : s.items) out += "- " + item + "\n";
  }
  return out;
}

}  // namespace cookgraph::score_internal
