// The .dot stage of the GStreamer reader: a tokenizer and a parser for the
// subset of DOT that gst_debug_bin_to_dot_file writes (subgraphs, node and edge
// statements, attribute lists, `key=value` statements), into a DotPipeline.
// Subgraphs are parsed without recursion (a stack of the scopes to restore),
// so nesting is bounded by the depth limit alone, never by the C++ stack.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_set>

#include "adapters/gstreamer/records.h"
#include "base/text.h"

namespace cookgraph::gst {
namespace {

enum class Tok : uint8_t { kId, kString, kPunct, kArrow, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;  // kString: the raw content between the quotes
  int64_t line = 0, column = 0;
};

bool IsIdChar(unsigned char c) {
  return std::isalnum(c) || c == '_' || c == '.' || c == '-' || c >= 0x80;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = line_start_ = 3;
  }

  // The next token; nullopt (with `error` set) for an unterminated string or
  // comment or a byte DOT does not allow here.
  std::optional<Token> Next(std::string& error) {
    SkipBlanksAndComments();
    Token t;
    t.line = line_;
    t.column = static_cast<int64_t>(i_ - line_start_) + 1;
    if (i_ >= s_.size()) return t;
    const unsigned char c = s_[i_];
    if (c == '"') {
      size_t j = i_ + 1;
      while (j < s_.size() && s_[j] != '"') {
        if (s_[j] == '\\' && j + 1 < s_.size()) ++j;
        ++j;
      }
      if (j >= s_.size()) {
        error = "a quoted string is not closed";
        return std::nullopt;
      }
      t.kind = Tok::kString;
      t.text = s_.substr(i_ + 1, j - i_ - 1);
      Move(j + 1);
      return t;
    }
    if (c == '-' && i_ + 1 < s_.size() && (s_[i_ + 1] == '>' || s_[i_ + 1] == '-')) {
      t.kind = Tok::kArrow;
      t.text = s_.substr(i_, 2);
      Move(i_ + 2);
      return t;
    }
    if (IsIdChar(c)) {
      size_t j = i_;
      while (j < s_.size() && IsIdChar(s_[j])) ++j;
      t.kind = Tok::kId;
      t.text = s_.substr(i_, j - i_);
      Move(j);
      return t;
    }
    if (std::string_view("{}[]=;,:").find(static_cast<char>(c)) != std::string_view::npos) {
      t.kind = Tok::kPunct;
      t.text = s_.substr(i_, 1);
      Move(i_ + 1);
      return t;
    }
    error = "unexpected character '" + std::string(1, static_cast<char>(c)) + "'";
    return std::nullopt;
  }

  int64_t line() const { return line_; }
  int64_t column() const { return static_cast<int64_t>(i_ - line_start_) + 1; }

 private:
  // Moves to `to`, counting the newlines passed.
  void Move(size_t to) {
    for (; i_ < to; ++i_) {
      if (s_[i_] == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      }
    }
  }

  void SkipBlanksAndComments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Move(i_ + 1);
      } else if (c == '#' && i_ == line_start_) {
        size_t end = s_.find('\n', i_);
        Move(end == std::string_view::npos ? s_.size() : end);
      } else if (s_.substr(i_, 2) == "//") {
        size_t end = s_.find('\n', i_);
        Move(end == std::string_view::npos ? s_.size() : end);
      } else if (s_.substr(i_, 2) == "/*") {
        size_t end = s_.find("*/", i_ + 2);
        Move(end == std::string_view::npos ? s_.size() : end + 2);
      } else {
        return;
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  size_t line_start_ = 0;
  int64_t line_ = 1;
};

using Attrs = std::vector<std::pair<std::string_view, std::string_view>>;

std::string_view Attr(const Attrs& attrs, std::string_view key) {
  std::string_view value;
  for (const auto& [k, v] : attrs) {
    if (k == key) value = v;  // the last one wins, as in DOT
  }
  return value;
}

// The lower-case pointer of an id ending in `_0x<hex>`, or "".
std::string PointerSuffix(std::string_view id) {
  const size_t at = id.rfind("_0x");
  if (at == std::string_view::npos || at + 3 == id.size()) return "";
  std::string out = "0x";
  for (char c : id.substr(at + 3)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// A dot object name without its `node_` prefix and `_0x<hex>` suffix.
std::string_view BareName(std::string_view id) {
  if (id.substr(0, 5) == "node_") id.remove_prefix(5);
  if (!PointerSuffix(id).empty()) id = id.substr(0, id.rfind("_0x"));
  return id;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const InputLimits& limits)
      : lex_(text), file_(file), limits_(limits) {}

  Result<DotPipeline> Parse() {
    if (!Advance()) return *error_;
    if (tok_.kind == Tok::kId && AsciiLower(tok_.text) == "strict" && !Advance()) return *error_;
    if (tok_.kind != Tok::kId || AsciiLower(tok_.text) != "digraph") {
      return Fail(
          "not a GStreamer .dot dump: it should start with `digraph pipeline {` (written "
          "by gst-launch-1.0 under GST_DEBUG_DUMP_DOT_DIR)");
    }
    if (!Advance()) return *error_;
    if (tok_.kind == Tok::kId || tok_.kind == Tok::kString) {
      if (!Advance()) return *error_;
    }
    if (!Expect("{") || !Statements()) return *error_;
    if (!Advance()) return *error_;
    if (tok_.kind != Tok::kEnd) return Fail("text after the closing '}' of the graph");
    if (!Finish()) return *error_;
    return std::move(out_);
  }

 private:
  // Where statements land: the element cluster they are in, and whether that
  // is one of its pad clusters.
  struct Scope {
    int element = -1;
    bool pads = false;
    bool src = false;
  };

  // The graph's statements, after its '{', up to its closing '}' (the current
  // token when it returns true). A subgraph's '{' saves the scope it opens
  // in, and its '}' restores it.
  bool Statements() {
    std::vector<Scope> outer;  // per open subgraph: the scope around it
    if (!Advance()) return false;
    for (;;) {
      if (tok_.kind == Tok::kPunct && tok_.text == "}") {
        if (outer.empty()) return true;
        scope_ = outer.back();
        outer.pop_back();
        if (!Advance()) return false;
        continue;
      }
      if (tok_.kind == Tok::kEnd) {
        Fail("the graph ends before its closing '}'");
        return false;
      }
      if (tok_.kind == Tok::kPunct && tok_.text == ";") {
        if (!Advance()) return false;
        continue;
      }
      std::string_view id;
      bool subgraph = tok_.kind == Tok::kPunct && tok_.text == "{";
      if (tok_.kind == Tok::kId && AsciiLower(tok_.text) == "subgraph") {
        if (!Advance()) return false;
        if (tok_.kind == Tok::kId || tok_.kind == Tok::kString) {
          id = tok_.text;
          if (!Advance()) return false;
        }
        if (!(tok_.kind == Tok::kPunct && tok_.text == "{"))
          return Unexpected("'{' after subgraph");
        subgraph = true;
      }
      if (!subgraph) {
        if (!Statement()) return false;
        continue;
      }
      if (outer.size() >= limits_.depth) {
        Fail(LimitMessage(limits_, &InputLimits::depth, "subgraphs nest deeper than"));
        return false;
      }
      outer.push_back(scope_);
      if (!OpenSubgraph(id) || !Advance()) return false;
    }
  }

  // A statement other than a subgraph; leaves the token after it.
  bool Statement() {
    if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("a statement");
    const Token first = tok_;
    if (!Advance()) return false;
    if (tok_.kind == Tok::kPunct && tok_.text == "=") {
      if (!Advance()) return false;
      if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("a value");
      Assign(first.text, tok_.text);
      return Advance();
    }
    const std::string_view keyword = first.kind == Tok::kId ? first.text : "";
    if (keyword == "node" || keyword == "edge" || keyword == "graph") {
      Attrs ignored;
      return Attributes(ignored);
    }
    std::vector<std::string_view> chain = {first.text};
    if (!SkipPort()) return false;
    while (tok_.kind == Tok::kArrow) {
      if (!Advance()) return false;
      if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("a node id");
      chain.push_back(tok_.text);
      if (!Advance() || !SkipPort()) return false;
    }
    Attrs attrs;
    if (!Attributes(attrs)) return false;
    if (chain.size() == 1) {
      Node(first.text, attrs);
    } else {
      Links(chain, attrs, first.line);
    }
    return true;
  }

  // `:port[:compass]` after a node id, ignored.
  bool SkipPort() {
    for (int i = 0; i < 2 && tok_.kind == Tok::kPunct && tok_.text == ":"; ++i) {
      if (!Advance()) return false;
      if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("a port name");
      if (!Advance()) return false;
    }
    return true;
  }

  // Zero or more `[a=b, c=d]` lists; leaves the token after them.
  bool Attributes(Attrs& out) {
    while (tok_.kind == Tok::kPunct && tok_.text == "[") {
      if (!Advance()) return false;
      while (!(tok_.kind == Tok::kPunct && tok_.text == "]")) {
        if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("an attribute");
        const std::string_view key = tok_.text;
        if (!Advance()) return false;
        std::string_view value = "true";
        if (tok_.kind == Tok::kPunct && tok_.text == "=") {
          if (!Advance()) return false;
          if (tok_.kind != Tok::kId && tok_.kind != Tok::kString) return Unexpected("a value");
          value = tok_.text;
          if (!Advance()) return false;
        }
        out.emplace_back(key, value);
        if (tok_.kind == Tok::kPunct && (tok_.text == "," || tok_.text == ";")) {
          if (!Advance()) return false;
        }
      }
      if (!Advance()) return false;
    }
    return true;
  }

  // At the '{' of subgraph `id`: enters its scope (an element cluster, or a
  // pad cluster of the element around it). False past the nodes limit.
  bool OpenSubgraph(std::string_view id) {
    const int64_t line = tok_.line;
    const Scope outer = scope_;
    if (id.substr(0, 8) == "cluster_") {
      const std::string_view name = id.substr(8);
      const DotElement* owner = outer.element >= 0 ? &out_.elements[outer.element] : nullptr;
      if (owner && !outer.pads && name.size() > owner->cluster.size() &&
          name.substr(0, owner->cluster.size()) == owner->cluster &&
          (name.substr(owner->cluster.size()) == "_sink" ||
           name.substr(owner->cluster.size()) == "_src")) {
        scope_.pads = true;
        scope_.src = name.substr(owner->cluster.size()) == "_src";
      } else {
        if (out_.elements.size() >= limits_.nodes) {
          Fail(LimitMessage(limits_, &InputLimits::nodes, "the dump has more elements than"));
          return false;
        }
        DotElement e;
        e.cluster = std::string(name);
        e.pointer = PointerSuffix(name);
        e.parent = outer.element;
        e.line = line;
        out_.elements.push_back(std::move(e));
        labels_.emplace_back();
        const int index = static_cast<int>(out_.elements.size()) - 1;
        if (outer.element >= 0) out_.elements[outer.element].children.push_back(index);
        scope_ = Scope{.element = index};
      }
    }
    return true;
  }

  void Assign(std::string_view key, std::string_view value) {
    if (scope_.pads) return;
    if (scope_.element < 0) {
      if (key == "label") header_label_ = value;
      return;
    }
    if (key == "label") labels_[scope_.element] = value;  // split in Finish
    if (key == "fillcolor") out_.elements[scope_.element].fill = std::string(value);
  }

  void Node(std::string_view id, const Attrs& attrs) {
    if (!scope_.pads) return;  // the legend, tracers, or nodes DOT merely mentions
    if (!seen_pads_.insert(std::string(id)).second) return;
    DotPad pad;
    pad.id = std::string(id);
    pad.owner = scope_.element;
    pad.src = scope_.src;
    pad.fill = std::string(Attr(attrs, "fillcolor"));
    const auto lines = LabelLines(Attr(attrs, "label"));
    if (!lines.empty() && !lines[0].empty()) {
      pad.name = lines[0];
    } else {
      // `<element>_<pad>`: split on the element's own id, not on '_'.
      std::string_view rest = id;
      const std::string& element = out_.elements[scope_.element].cluster;
      if (rest.substr(0, element.size() + 1) == element + "_") {
        rest.remove_prefix(element.size() + 1);
      }
      pad.name = std::string(BareName(rest));
    }
    out_.elements[scope_.element].pads.push_back(static_cast<int>(out_.pads.size()));
    out_.pads.push_back(std::move(pad));
  }

  void Links(const std::vector<std::string_view>& chain, const Attrs& attrs, int64_t line) {
    const std::string_view style = Attr(attrs, "style");
    if (style.find("invis") != std::string_view::npos) return;
    std::string_view caps = Attr(attrs, "taillabel");
    if (caps.empty()) caps = Attr(attrs, "label");
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
      out_.links.push_back(DotLink{.from = std::string(chain[i]),
                                   .to = std::string(chain[i + 1]),
                                   .ghost = style.find("dashed") != std::string_view::npos,
                                   .caps = std::string(caps),
                                   .line = line});
    }
  }

  // Splits the labels, and tells bins from elements: a bin holds element
  // clusters or ghost pads (which GStreamer colours #ffdddd / #ddddff), is
  // filled white while it has pads (an element with pads is coloured by
  // them), or has a GType that names it one. False (with the error) for a
  // name or type past the name-length limit.
  bool Finish() {
    auto header = LabelLines(header_label_);
    if (!header.empty()) {
      std::string_view type = header[0];
      if (type.size() >= 2 && type.front() == '<' && type.back() == '>') {
        type = type.substr(1, type.size() - 2);
      }
      out_.type = std::string(type);
      header.erase(header.begin());
    }
    SplitLabel(header, out_.name, out_.params);
    for (size_t i = 0; i < out_.elements.size(); ++i) {
      DotElement& e = out_.elements[i];
      auto lines = LabelLines(labels_[i]);
      e.type = lines.empty() ? "" : lines[0];
      if (!lines.empty()) lines.erase(lines.begin());
      SplitLabel(lines, e.name, e.params);
      if (e.name.empty()) e.name = std::string(BareName(e.cluster));
      for (const auto& [what, text] : {std::pair{"name", &e.name}, std::pair{"type", &e.type}}) {
        if (text->size() > limits_.name_length) {
          error_ = Error{.file = file_,
                         .line = e.line,
                         .where = "element cluster_" + TruncateMiddle(e.cluster, 40),
                         .message = NameTooLong(limits_, fmt::format("its {}", what),
                                                text->size())};
          return false;
        }
      }
      bool ghost_pads = false;
      for (int p : e.pads) {
        const std::string& fill = out_.pads[p].fill;
        ghost_pads = ghost_pads || fill == "#ffdddd" || fill == "#ddddff";
      }
      const std::string_view type = e.type;
      const bool bin_type = EndsWithText(type, "Bin") || EndsWithText(type, "Pipeline");
      e.bin =
          !e.children.empty() || ghost_pads || (e.fill == "#ffffff" && !e.pads.empty()) || bin_type;
    }
    return true;
  }

  // Label lines after the type: the name, an optional state ("[>]",
  // "[=] -> [>]"), then `key=value` properties.
  static void SplitLabel(const std::vector<std::string>& lines, std::string& name, Params& params) {
    size_t i = 0;
    if (i < lines.size()) name = lines[i++];
    if (i < lines.size() && !lines[i].empty() && lines[i][0] == '[') ++i;
    for (; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.empty()) continue;
      const size_t eq = line.find('=');
      if (eq == std::string::npos) {
        params.emplace_back(line, "");
      } else {
        params.emplace_back(line.substr(0, eq), line.substr(eq + 1));
      }
    }
  }

  static bool EndsWithText(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
  }

  bool Advance() {
    std::string message;
    auto t = lex_.Next(message);
    if (!t) {
      error_ =
          Error{.file = file_, .line = lex_.line(), .column = lex_.column(), .message = message};
      return false;
    }
    tok_ = *t;
    return true;
  }

  bool Expect(std::string_view punct) {
    if (tok_.kind == Tok::kPunct && tok_.text == punct) return true;
    return Unexpected("'" + std::string(punct) + "'");
  }

  bool Unexpected(const std::string& wanted) {
    std::string got =
        tok_.kind == Tok::kEnd ? "the end of the file" : "'" + std::string(tok_.text) + "'";
    if (got.size() > 60) got = got.substr(0, 57) + "...'";
    Fail("expected " + wanted + ", found " + got);
    return false;
  }

  Error Fail(std::string message) {
    error_ = Error{
        .file = file_, .line = tok_.line, .column = tok_.column, .message = std::move(message)};
    return *error_;
  }

  Lexer lex_;
  const std::string& file_;
  const InputLimits& limits_;
  Token tok_;
  Scope scope_;
  std::string_view header_label_;
  std::vector<std::string_view> labels_;  // raw label per element cluster
  std::unordered_set<std::string> seen_pads_;
  DotPipeline out_;
  std::optional<Error> error_;
};

}  // namespace

std::vector<std::string> LabelLines(std::string_view raw) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c != '\\' || i + 1 == raw.size()) {
      line += c;
      continue;
    }
    const char d = raw[i + 1];
    if (d == 'n' || d == 'l' || d == 'r') {
      lines.push_back(std::move(line));
      line.clear();
      ++i;
    } else if (d == '"' || d == '\\') {
      line += d;
      ++i;
    } else if (d == 't' || d == 'b' || d == 'f' || d == 'v') {
      line += d == 't' ? '\t' : d == 'b' ? '\b' : d == 'f' ? '\f' : '\v';
      ++i;
    } else if (d >= '0' && d <= '7') {
      int value = 0, digits = 0;
      while (digits < 3 && i + 1 < raw.size() && raw[i + 1] >= '0' && raw[i + 1] <= '7') {
        value = value * 8 + (raw[i + 1] - '0');
        ++i;
        ++digits;
      }
      line += static_cast<char>(value & 0xff);
    } else {
      line += c;  // DOT keeps an unknown escape as it is
    }
  }
  lines.push_back(std::move(line));
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string CompactCaps(std::string_view raw) {
  std::string out;
  for (const std::string& line : LabelLines(raw)) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    const size_t colon = line.find(": ", start);
    if (start > 0 && colon != std::string::npos) {
      // A field, written "  %18s: %s".
      out += ", " + line.substr(start, colon - start) + "=" + line.substr(colon + 2);
    } else {
      if (!out.empty()) out += "; ";
      out += line.substr(start);
    }
  }
  return out;
}

Result<DotPipeline> ParseDot(std::string_view text, const std::string& file,
                             const InputLimits& limits) {
  return Parser(text, file, limits).Parse();
}

}  // namespace cookgraph::gst
