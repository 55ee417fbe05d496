#include <cmath>
#include <functional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "metrics/rollup.h"
#include "writers/score_columns.h"
#include "writers/score_internal.h"

// `score --format csv`: a header row, then a row per node (or container) of
// every snapshot. RFC 4180 quoting; "\n" line ends, which every CSV reader
// accepts. The columns are those of JSON (score_columns.h).

namespace cookgraph::score_internal {

// A text cell that a spreadsheet would take for a formula (CSV injection:
// OWASP lists a first character of = + - @, tab and carriage return) is
// written quoted with a leading ' , which spreadsheets show as text. Only text
// cells (file, name, engine, id, type, family, container, note) are text:
// numbers are written by AppendNumber and a negative one stays a number.
namespace {

bool ReadAsFormula(std::string_view s) {
  return !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos;
}

}  // namespace

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



namespace {

// Calls `row` with the values of each row that CSV writes for one snapshot, in
// order: those after the leading file,name,engine (file for containers).
void VisitCsvRows(const ScoredSnapshot& scored, const ScoreOptions& options,
                  const std::function<void(const std::vector<Value>&)>& row) {
  std::vector<Value> values;
  if (options.group_by_container) {
    const std::vector<ContainerStats> containers = RollUp(scored.snapshot, scored.analysis);
    for (size_t i = 0; i < Shown(containers.size(), options.top); ++i) {
      ContainerValues(containers[i], values);
      row(values);
    }
    return;
  }
  const Selection sel = SelectNodes(scored.analysis, options);
  std::vector<Value> baseline;
  for (size_t i = 0; i < sel.shown; ++i) {
    NodeValues(scored.snapshot, scored.analysis, sel.order[i], RankAt(sel, i), values);
    if (options.sort == SortKey::kGain) values.emplace_back(ValueAt(scored.analysis.gain_ms, sel.order[i]));
    if (!options.baseline_file.empty()) {
      BaselineValues(BaselineOf(scored, sel.order[i]), baseline);
      values.insert(values.end(), baseline.begin(), baseline.end());
    }
    row(values);
  }
}

}  // namespace

std::string CsvFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Snapshot& snap = scored.snapshot;
  std::string prefix;  // file,name,engine (file for containers), the same on every row
  AppendCsvField(prefix, scored.file);
  if (!options.group_by_container) {
    prefix += ',';
    AppendCsvField(prefix, snap.info.name);
    prefix += ',';
    AppendCsvField(prefix, snap.info.engine);
  }
  std::string out;
  VisitCsvRows(scored, options, [&](const std::vector<Value>& values) {
    out += prefix;
    for (const Value& v : values) {
      out += ',';
      AppendCsvValue(out, v);
    }
    out += '\n';
  });
  return out;
}

std::vector<std::string> CsvColumns(const ScoreOptions& options) {
  std::vector<std::string> columns;
  if (options.group_by_container) {
    columns = {"file", "container"};
    for (size_t c = 1; c < kContainerColumns.size(); ++c) columns.emplace_back(kContainerColumns[c]);
    return columns;
  }
  columns = {"file", "name", "engine"};
  for (std::string_view column : kNodeColumns) columns.emplace_back(column);
  if (options.sort == SortKey::kGain) columns.emplace_back("gain_ms");
  if (!options.baseline_file.empty()) {
    for (std::string_view column : kBaselineColumns) columns.emplace_back(column);
  }
  return columns;
}

std::string CsvHeader(const ScoreOptions& options) {
  std::string out;
  for (const std::string& column : CsvColumns(options)) {
    if (!out.empty()) out += ',';
    out += column;
  }
  out += '\n';
  return out;
}

}  // namespace cookgraph::score_internal

namespace cookgraph {

ScoreTable ScoreRows(const ScoredSnapshot& scored, const ScoreOptions& options) {
  using namespace score_internal;
  ScoreTable table;
  table.columns = CsvColumns(options);
  VisitCsvRows(scored, options, [&](const std::vector<Value>& values) {
    std::vector<ScoreValue>& row = table.rows.emplace_back();
    row.reserve(values.size() + 3);
    row.emplace_back(scored.file);
    if (!options.group_by_container) {
      row.emplace_back(scored.snapshot.info.name);
      row.emplace_back(scored.snapshot.info.engine);
    }
    for (const Value& v : values) {
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string_view>) {
              row.emplace_back(std::string(x));
            } else if constexpr (std::is_same_v<T, double>) {
              // In place, not through a temporary ScoreValue: g++ 12 takes the
              // moved temporary's string for uninitialised (-Wmaybe-uninitialized).
              if (std::isfinite(x)) {
                row.emplace_back(x);
              } else {
                row.emplace_back();
              }
            } else {
              row.emplace_back(x);
            }
          },
          v);
    }
  });
  return table;
}

}  // namespace cookgraph
