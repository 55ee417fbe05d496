#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "base/text.h"
#include "writers/score_internal.h"
#include "writers/score_table_rows.h"

// `score --format table`: the aligned terminal table, with colours on a
// terminal. Markdown (score_markdown.cc) renders the same row model
// (score_table_rows.h).

namespace cookgraph::score_internal {
namespace {

// ANSI SGR sequences.
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kYellow = "\x1b[33m";
constexpr std::string_view kReset = "\x1b[0m";

std::string_view ToneCode(Tone tone) {
  switch (tone) {
    case Tone::kDim:
      return kDim;
    case Tone::kRed:
      return kRed;
    case Tone::kYellow:
      return kYellow;
    case Tone::kPlain:
      break;
  }
  return {};
}

void AppendPadded(std::string& out, const std::string& text, size_t width, bool right, bool last) {
  const size_t pad = width - std::min(width, DisplayWidth(text));
  if (right) out.append(pad, ' ');
  out += text;
  if (!right && !last) out.append(pad, ' ');
}

void RenderAligned(const TextTable& t, bool color, std::string& out) {
  const size_t cols = t.columns.size();
  // Cell text as shown: printable, cut to the column's width.
  std::vector<std::vector<std::string>> shown(t.rows.size());
  std::vector<size_t> width(cols);
  for (size_t c = 0; c < cols; ++c) width[c] = DisplayWidth(t.columns[c].title);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < cols; ++c) shown[r].push_back(Printable(t.rows[r][c].text));
  }
  // Cut columns: two names cut alike get " #1", " #2" (TruncateApart).
  for (size_t c = 0; c < cols; ++c) {
    if (t.columns[c].max_width == 0) continue;
    std::vector<std::string> column;
    for (const auto& row : shown) column.push_back(row[c]);
    column = TruncateApart(column, t.columns[c].max_width);
    for (size_t r = 0; r < t.rows.size(); ++r) shown[r][c] = std::move(column[r]);
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < cols; ++c) width[c] = std::max(width[c], DisplayWidth(shown[r][c]));
  }
  // Trailing left-aligned columns that are empty everywhere (flags) still get
  // their title; lines never end in spaces.
  auto line = [&](auto&& text_of, auto&& tone_of) {
    std::string row;
    for (size_t c = 0; c < cols; ++c) {
      if (c > 0) row += "  ";
      const std::string_view code = color ? tone_of(c) : std::string_view();
      if (!code.empty()) row += code;
      AppendPadded(row, text_of(c), width[c], t.columns[c].right, c + 1 == cols);
      if (!code.empty()) row += kReset;
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row;
    out += '\n';
  };
  line([&](size_t c) { return std::string(t.columns[c].title); }, [&](size_t) { return kBold; });
  for (size_t r = 0; r < t.rows.size(); ++r) {
    line([&](size_t c) -> const std::string& { return shown[r][c]; },
         [&](size_t c) { return ToneCode(t.rows[r][c].tone); });
  }
  if (!t.more.empty()) {
    out += color ? std::string(kDim) + t.more + std::string(kReset) : t.more;
    out += '\n';
  }
}

}  // namespace

std::string TableFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const bool color = options.color;
  auto text = [](std::string_view s) { return Printable(s); };
  auto id = [](std::string_view s) { return ClipMiddle(s, kIdWidth); };
  std::string out;
  std::string title = Printable(scored.file);
  for (const std::string& part : TitleParts(scored, text)) title += " · " + part;
  out += color ? std::string(kBold) + title + std::string(kReset) : title;
  out += '\n';
  if (!scored.first_fix.empty()) out += "what to change first: " + text(scored.first_fix) + "\n";
  out += '\n';
  RenderAligned(
      options.group_by_container ? ContainerTable(scored, options) : NodeTable(scored, options),
      color, out);
  for (const Section& s : Sections(scored, id, text)) {
    out += '\n';
    out += color ? std::string(kBold) + s.title + std::string(kReset) : s.title;
    out += ":\n";
    for (const std::string& item : s.items) out += "  " + item + "\n";
  }
  return out;
}

}  // namespace cookgraph::score_internal
