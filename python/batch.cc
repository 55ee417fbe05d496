// cookgraph.score() and cookgraph.diff() (docs/python.md#score): many inputs
// scored by the pipeline's batch pool (pipeline/batch.h) without the GIL,
// their rows gathered in input order; two inputs compared.

#include "python/batch.h"

#include <pybind11/stl.h>

#include <iterator>
#include <memory>
#include <optional>
#include <variant>

#include "adapters/input_files.h"
#include "base/text.h"
#include "metrics/diff.h"
#include "pipeline/batch.h"
#include "pipeline/score.h"
#include "python/columns.h"
#include "python/errors.h"
#include "python/options.h"
#include "python/snapshot.h"
#include "writers/diff_formats.h"
#include "writers/score.h"

namespace cookgraph::python {
namespace {

py::list Warnings(const std::vector<std::pair<std::string, std::string>>& warnings) {
  py::list list;
  for (const auto& [file, message] : warnings) {
    py::dict w;
    w["file"] = FileName(file);
    w["message"] = Text(message);
    list.append(w);
  }
  return list;
}

// ExpandInputs: the inputs (each one path, or a GStreamer dump and its log,
// or the ranks of one job), the arguments that gave none, and warnings. The
// inputs' paths are bytes: a name found in a folder need not be UTF-8, and
// score_inputs takes them back as they are.
py::tuple Expand(const std::vector<std::string>& paths) {
  InputList list;
  {
    py::gil_scoped_release released;
    list = ExpandInputs(paths);
  }
  py::list inputs, errors;
  for (const Input& input : list.inputs) {
    py::list input_paths;
    for (const std::string& path : input.paths) input_paths.append(py::bytes(path));
    inputs.append(input_paths);
  }
  for (const Error& e : list.errors) errors.append(ErrorDict(e));
  std::vector<std::pair<std::string, std::string>> warnings;
  for (const Error& w : list.warnings) warnings.emplace_back(w.file, w.message);
  return py::make_tuple(inputs, errors, Warnings(warnings));
}

// Scores `inputs` (as Expand gives them) on `jobs` threads. With
// `stop_at_error`, inputs after the first failing one (in input order) are
// not started: the caller raises that one's error.
py::tuple ScoreInputs(const std::vector<std::vector<std::string>>& input_paths,
                      std::optional<unsigned> jobs, bool stop_at_error,
                      std::optional<double> budget_ms,
                      const std::optional<std::string>& frame_marker,
                      const std::optional<std::string>& format_in,
                      const std::optional<py::dict>& limits, const std::string& sort,
                      std::optional<size_t> top, const std::optional<std::string>& group_by,
                      const std::optional<std::string>& baseline_file) {
  const ReadOptions read = MakeReadOptions(format_in, frame_marker, limits);
  const ScoreOptions options = MakeScoreOptions(sort, top, group_by, baseline_file);
  const AnalysisOptions analysis_options{.budget_ms = CheckBudget(budget_ms),
                                         .gains = options.sort == SortKey::kGain};
  if (jobs && (*jobs < 1 || *jobs > 1024)) {
    throw py::value_error("jobs: must be 1 to 1024, got " + std::to_string(*jobs));
  }
  std::vector<Input> inputs;
  for (const auto& paths : input_paths) inputs.push_back(Input{paths});

  // The columns come from ScoreRows of an empty snapshot, which has no rows.
  ScoreTable table = ScoreRows({"", Snapshot{}, Analysis{}}, options);
  std::vector<pipeline::ScoredInput> outcomes(inputs.size());
  size_t taken = 0;
  {
    py::gil_scoped_release released;
    // The baseline is read and analysed once; workers only read it.
    std::optional<pipeline::Baseline> baseline;
    if (baseline_file) {
      Result<pipeline::Baseline> b = pipeline::ReadBaseline(*baseline_file, read, analysis_options);
      if (!b) throw RaisedError{ErrorKind::kInput, b.error()};
      baseline = std::move(*b);
    }
    const pipeline::ScoreRequest request{.read = read,
                                         .analysis = analysis_options,
                                         .options = options,
                                         .rows = options,
                                         .baseline = baseline ? &*baseline : nullptr};
    pipeline::RunInOrder(
        inputs.size(), pipeline::BatchOptions{.jobs = jobs.value_or(0), .stop_at_failure = stop_at_error},
        [&](size_t i) {
          outcomes[i] = pipeline::ScoreInput(inputs[i], request);
          return !outcomes[i].outcome;
        },
        [&](size_t i) {
          taken = i + 1;
          if (std::optional<ScoreTable>& rows = outcomes[i].rows) {
            std::move(rows->rows.begin(), rows->rows.end(), std::back_inserter(table.rows));
            rows.reset();
          }
        });
  }
  py::list errors;
  std::vector<std::pair<std::string, std::string>> warnings;
  for (size_t i = 0; i < taken; ++i) {
    const pipeline::ScoredInput& s = outcomes[i];
    for (const std::string& w : s.warnings) warnings.emplace_back(inputs[i].name(), w);
    if (s.outcome) continue;
    py::dict e = ErrorDict(s.outcome.failure().error);
    e["internal"] = s.outcome.failure().internal;
    errors.append(e);
  }
  return py::make_tuple(Columns(table), errors, Warnings(warnings));
}


// One side of a comparison: a path to read, or a snapshot already loaded.
using Side = std::variant<std::string, std::shared_ptr<LoadedSnapshot>>;

// A side read (when it is a path) and analysed as `cookgraph diff` does: with
// the snapshot's own budget.
struct Read {
  std::string file;
  Judged read;  // the snapshot and its analysis, when read here
  const Snapshot* s = nullptr;
  const Analysis* a = nullptr;
};

void ReadSide(const Side& side, const ReadOptions& options, Read& out) {
  if (const auto* loaded = std::get_if<std::shared_ptr<LoadedSnapshot>>(&side)) {
    out.file = (*loaded)->file;
    out.s = &(*loaded)->judged.snapshot;
    out.a = &(*loaded)->judged.analysis;
    return;
  }
  out.file = std::get<std::string>(side);
  Status read = pipeline::ReadAndAnalyse(Input{{out.file}}, options, {}, out.read);
  if (!read) throw RaisedError{ErrorKind::kInput, read.error()};
  out.s = &out.read.snapshot;
  out.a = &out.read.analysis;
}

// Two inputs compared as `cookgraph diff` compares them: DiffRows' columns,
// the JSON document of `diff --format json` and the analyses' warnings.
py::tuple Diff(const Side& before_side, const Side& after_side, std::optional<double> alpha,
               std::optional<double> min_change, const std::optional<std::string>& frame_marker,
               const std::optional<std::string>& format_in, const std::optional<py::dict>& limits) {
  const ReadOptions read = MakeReadOptions(format_in, frame_marker, limits);
  DiffOptions options;
  if (alpha) {
    if (!(*alpha >= 1e-300 && *alpha <= 0.5)) {
      throw py::value_error("alpha: must be in [1e-300, 0.5], got " + std::to_string(*alpha));
    }
    options.alpha = *alpha;
  }
  if (min_change) {
    if (!(*min_change >= 0 && *min_change <= 1e6)) {
      throw py::value_error("min_change: must be a percentage in [0, 1000000], got " +
                            std::to_string(*min_change));
    }
    options.min_change_pct = *min_change;
  }
  ScoreTable table;
  std::string json;
  std::vector<std::pair<std::string, std::string>> warnings;
  {
    py::gil_scoped_release released;
    Read before, after;
    ReadSide(before_side, read, before);
    ReadSide(after_side, read, after);
    for (const std::string& w : before.a->warnings) warnings.emplace_back(before.file, w);
    for (const std::string& w : after.a->warnings) warnings.emplace_back(after.file, w);
    const SnapshotDiff diff = CompareSnapshots(*before.s, *before.a, *after.s, *after.a, options);
    // Names with U+FFFD for bytes that are not UTF-8, as the CLI's JSON shows them.
    const std::string before_name = ReplaceInvalidUtf8(before.file);
    const std::string after_name = ReplaceInvalidUtf8(after.file);
    const DiffInput input{before_name, after_name, *before.s, *after.s, diff};
    table = DiffRows(input);
    json = RenderDiff(DiffFormat::kJson, input, {});
  }
  return py::make_tuple(Columns(table), Text(json), Warnings(warnings));
}

}  // namespace

void BindBatch(py::module_& m) {
  m.def("expand_inputs", &Expand, py::arg("paths"),
        "The inputs the CLI's score makes of `paths` (folders searched, GStreamer pairs and "
        "job ranks joined, sorted): (inputs, errors, warnings).");
  m.def("score_inputs", &ScoreInputs, py::arg("inputs"), py::kw_only(),
        py::arg("jobs") = py::none(), py::arg("stop_at_error") = false,
        py::arg("budget_ms") = py::none(), py::arg("frame_marker") = py::none(),
        py::arg("format_in") = py::none(), py::arg("limits") = py::none(),
        py::arg("sort") = "score", py::arg("top") = py::none(), py::arg("group_by") = py::none(),
        py::arg("baseline") = py::none(),
        "Scores expanded inputs on worker threads without the GIL: (columns, errors, "
        "warnings), the rows in input order.");
  m.def("diff", &Diff, py::arg("before"), py::arg("after"), py::kw_only(),
        py::arg("alpha") = py::none(), py::arg("min_change") = py::none(),
        py::arg("frame_marker") = py::none(), py::arg("format_in") = py::none(),
        py::arg("limits") = py::none(),
        "Compares two inputs (paths or loaded Snapshots) as `cookgraph diff` does: (columns, "
        "json_text, warnings).");
}

}  // namespace cookgraph::python
