#ifndef COOKGRAPH_BASE_TEXT_H_
#define COOKGRAPH_BASE_TEXT_H_

// Text shared by every layer: UTF-8 checks, escaping for JSON (and YAML)
// string literals, Markdown and HTML, strings made safe and narrow enough for
// a terminal, and numbers grouped for people.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cookgraph {

/// A hash of text that finds a std::string key from a std::string_view (or a
/// const char*) without building a string: StringMap's.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A hash map keyed by text whose find, count and contains take any view of
/// the text, with no allocation per lookup.
template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

/// The last '/'-separated part of an id ("/project1/noise1" -> "noise1"); the
/// whole id when it has no such part. The short label of the graph drawings.
inline std::string_view Basename(std::string_view id) {
  const size_t slash = id.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == id.size()) return id;
  return id.substr(slash + 1);
}

/// True when `s` ends with `suffix`.
inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Length of the valid UTF-8 sequence (RFC 3629) that starts at s[i], or 0 when
/// the bytes there are not one.
size_t Utf8Length(std::string_view s, size_t i);

/// Offset of the first byte of `text` that is not part of valid UTF-8
/// (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF);
/// std::string_view::npos when all of it is valid.
size_t FirstInvalidUtf8(std::string_view text);

/// `text` with each byte that is not part of valid UTF-8 replaced by U+FFFD,
/// as the JSON writers replace it.
std::string ReplaceInvalidUtf8(std::string_view text);

/// Whether JSON `text` nests brackets ({ and [ outside strings) more than
/// `depth` levels deep: checked before parsing, so that no input reaches a
/// parser's limits.
bool JsonNestsDeeperThan(std::string_view text, size_t depth);

/// Appends `s` as a double-quoted JSON string literal; invalid UTF-8 becomes
/// U+FFFD so the document stays valid whatever bytes an id holds. With
/// `yaml_safe`, the C1 controls (U+0080..U+009F), which YAML refuses unescaped,
/// are escaped too, so the same text is a valid YAML double-quoted scalar.
void AppendJsonString(std::string& out, std::string_view s, bool yaml_safe = false);

/// `s` as nlohmann::json::dump(-1, ' ', false, error_handler_t::replace)
/// writes a string: \b and \f short, DEL raw, one U+FFFD per maximal invalid
/// UTF-8 subpart (base/json_writer.h's JsonStyle::kNlohmann).
void AppendNlohmannJsonString(std::string& out, std::string_view s);

/// `s` made safe for a terminal: control characters (C0, DEL, C1, which could
/// start escape sequences) become '?', invalid UTF-8 becomes U+FFFD. The ASCII
/// controls in `keep` (say "\n\t" for text of several lines) pass unchanged.
std::string Printable(std::string_view s, std::string_view keep = {});

/// `s` as the text of a GitHub Markdown table cell or list item: printable, on
/// one line, with Markdown punctuation (and '|', which would end the cell)
/// escaped by a backslash.
std::string MarkdownText(std::string_view s);

/// `s` as HTML (or XML) text or attribute value: made printable (Printable),
/// with & < > " ' as character references.
std::string EscapeHtml(std::string_view s);

/// `s` as the inside of a Graphviz DOT double-quoted string: '"' and '\'
/// escaped (so that ids are not read as label escapes such as \n, \l, \N),
/// newlines as \n, carriage returns dropped.
std::string EscapeDot(std::string_view s);

/// `s` as a field of a tab-separated line: backslash, tab, line feed and
/// carriage return as \\, \t, \n and \r (PostgreSQL's COPY text format;
/// the check tools' dumps).
std::string EscapeTabField(std::string_view s);

/// `s` with the ASCII letters A-Z made lower case; every other byte as it is
/// (case-insensitive matching of HTTP headers and search text).
std::string AsciiLower(std::string_view s);

/// `s` without the ASCII white space (space, tab, CR, LF, VT, FF) at either end.
std::string_view TrimSpace(std::string_view s);

/// `n` with a comma between groups of three digits: 1234567 -> "1,234,567".
std::string Thousands(uint64_t n);

/// Columns a valid UTF-8 string takes: one per code point (wide CJK glyphs are
/// counted as one; ids are rarely made of them).
size_t DisplayWidth(std::string_view s);

// Clipping, three ways; each marks a cut with '…' (an invalid UTF-8 byte
// counts as one character).

/// `s` cut to at most `bytes` bytes (before the '…') at a UTF-8 boundary:
/// what fits a byte budget, such as a function's result for the model.
std::string ClipBytes(std::string_view s, size_t bytes);
/// `s` cut to at most `points` code points: a length a reader sees.
std::string ClipCodePoints(std::string_view s, size_t points);
/// `s` made Printable and cut to `width` columns in its middle
/// (TruncateMiddle): ids, whose both ends tell them apart.
std::string ClipMiddle(std::string_view s, size_t width);

/// A valid UTF-8 `s` cut to `width` columns by replacing its middle with '…':
/// both ends of an id (its container and its name) are what tell ids apart.
std::string TruncateMiddle(const std::string& s, size_t width);
/// TruncateMiddle of each of `texts`; where different texts would be cut
/// alike, each of them is cut shorter and ends in " #1", " #2", … (numbered in
/// order of first appearance), so no two different texts show the same.
std::vector<std::string> TruncateApart(const std::vector<std::string>& texts, size_t width);

}  // namespace cookgraph

#endif  // COOKGRAPH_BASE_TEXT_H_
