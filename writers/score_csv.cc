#include <string_view>
#include <variant>

#include "metrics/rollup.h"
#include "writers/score_columns.h"
#include "writers/score_internal.h"

// `score --format csv`: a header row, then a row per node (or container) of
// every snapshot. RFC 4180 quoting; "\n" line ends, which every CSV reader
// accepts. The columns are those of JSON (score_columns.h).

namespace cookgraph::score_internal {
namespace {

// A text cell that a spreadsheet would take for a formula (CSV injection:
// OWASP lists a first character of = + - @, tab and carriage return) is
// written quoted with a leading ' , which spreadsheets show as text. Only text
// cells (file, name, engine, id, type, family, container, note) are text:
// numbers are written by AppendNumber and a negative one stays a number.
bool ReadAsFormula(std::string_view s) {
  return !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos;
}

void AppendCsvField(std::string& out, std::string_view s) {
  const bool formula = ReadAsFormula(s);
  if (!formula && s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  if (formula) out += '\'';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void AppendCsvValue(std::string& out, const Value& v) {
  struct CsvCell {
    std::string& out;
    void operator()(std::monostate) const {}
    void operator()(std::string_view s) const { AppendCsvField(out, s); }
    void operator()(double d) const { AppendNumber(out, d); }
    void operator()(uint64_t u) const { AppendNumber(out, u); }
    void operator()(int64_t i) const { AppendNumber(out, i); }
    void operator()(bool b) const { out += b ? "true" : "false"; }
  };
  std::visit(CsvCell{out}, v);
}

}  // namespace

std::string CsvFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Snapshot& snap = scored.snapshot;
  std::string prefix;  // file,name,engine, the same on every row
  AppendCsvField(prefix, scored.file);
  prefix += ',';
  AppendCsvField(prefix, snap.info.name);
  prefix += ',';
  AppendCsvField(prefix, snap.info.engine);

  std::string out;
  std::vector<Value> values;
  auto row = [&] {
    out += prefix;
    for (const Value& v : values) {
      out += ',';
      AppendCsvValue(out, v);
    }
    out += '\n';
  };
  if (options.group_by_container) {
    // Header: file,container,depth,...: no name and engine columns here.
    prefix.resize(0);
    AppendCsvField(prefix, scored.file);
    const std::vector<ContainerStats> containers = RollUp(snap, scored.analysis);
    for (size_t i = 0; i < Shown(containers.size(), options.top); ++i) {
      ContainerValues(containers[i], values);
      row();
    }
    return out;
  }
  const Selection sel = SelectNodes(scored.analysis, options);
  std::vector<Value> baseline;
  for (size_t i = 0; i < sel.shown; ++i) {
    NodeValues(snap, scored.analysis, sel.order[i], RankAt(sel, i), values);
    if (!options.baseline_file.empty()) {
      BaselineValues(BaselineOf(scored, sel.order[i]), baseline);
      values.insert(values.end(), baseline.begin(), baseline.end());
    }
    row();
  }
  return out;
}

std::string CsvHeader(const ScoreOptions& options) {
  std::string out;
  if (options.group_by_container) {
    out = "file,container";
    for (size_t c = 1; c < kContainerColumns.size(); ++c) {
      out += ',';
      out += kContainerColumns[c];
    }
  } else {
    out = "file,name,engine";
    for (std::string_view column : kNodeColumns) {
      out += ',';
      out += column;
    }
    if (!options.baseline_file.empty()) {
      for (std::string_view column : kBaselineColumns) {
        out += ',';
        out += column;
      }
    }
  }
  out += '\n';
  return out;
}

}  // namespace cookgraph::score_internal
