// cookgraph.score() and cookgraph.diff() (docs/python.md#score): many inputs
// read and analysed by worker threads without the GIL, their rows gathered
// in input order; two inputs compared.

#include "python/batch.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <variant>

#include "adapters/input_files.h"
#include "adapters/input_reader.h"
#include "metrics/analysis.h"
#include "metrics/diff.h"
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
    w["file"] = Text(file);
    w["message"] = Text(message);
    list.append(w);
  }
  return list;
}

// ExpandInputs: the inputs (each one path, or a GStreamer dump and its log,
// or the ranks of one job), the arguments that gave none, and warnings.
py::tuple Expand(const std::vector<std::string>& paths) {
  InputList list;
  {
    py::gil_scoped_release released;
    list = ExpandInputs(paths);
  }
  py::list inputs, errors;
  for (const Input& input : list.inputs) inputs.append(py::cast(input.paths));
  for (const Error& e : list.errors) errors.append(ErrorDict(e));
  std::vector<std::pair<std::string, std::string>> warnings;
  for (const Error& w : list.warnings) warnings.emplace_back(w.file, w.message);
  return py::make_tuple(inputs, errors, Warnings(warnings));
}

// What one worker made of one input.
struct Scored {
  std::optional<ScoreTable> table;
  std::optional<Error> error;
  bool internal = false;  // the error is cookgraph's, not the input's
  std::vector<std::string> warnings;
};

Scored ScoreOne(const Input& input, const ReadOptions& read,
                const AnalysisOptions& analysis_options, const ScoreOptions& options,
                const Snapshot* baseline, const Analysis* baseline_analysis) {
  Scored scored;
  // One input's failure (even out of memory) is that input's error; the
  // batch goes on, as in the CLI.
  try {
    Result<Snapshot> snapshot = ReadInput(input.paths, read);
    if (!snapshot) {
      scored.error = snapshot.error();
      return scored;
    }
    const Analysis analysis = Analyse(*snapshot, analysis_options);
    scored.warnings = analysis.warnings;
    std::optional<SnapshotDiff> diff;
    if (baseline) diff = CompareSnapshots(*baseline, *baseline_analysis, *snapshot, analysis);
    const std::string name = input.name();
    scored.table = ScoreRows(
        {name, *snapshot, analysis, diff ? &*diff : nullptr, options.baseline_file}, options);
  } catch (const std::bad_alloc&) {
    scored =
        Scored{.error = Error{.file = input.name(), .message = "out of memory"}, .internal = true};
  } catch (const std::exception& e) {
    scored = Scored{
        .error = Error{.file = input.name(), .message = std::string("internal error: ") + e.what()},
        .internal = true};
  }
  return scored;
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
  std::vector<Scored> outcomes(inputs.size());
  {
    py::gil_scoped_release released;
    // The baseline is read and analysed once; workers only read it.
    std::optional<Snapshot> baseline;
    std::optional<Analysis> baseline_analysis;
    if (baseline_file) {
      Result<Snapshot> b = ReadInput({*baseline_file}, read);
      if (!b) throw RaisedError{ErrorKind::kInput, b.error()};
      baseline = std::move(*b);
      baseline_analysis = Analyse(*baseline, analysis_options);
    }
    std::atomic<size_t> next{0};
    std::atomic<size_t> stop{inputs.size()};  // no input at or after this one is started
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < inputs.size();) {
        if (i > stop.load()) continue;
        outcomes[i] =
            ScoreOne(inputs[i], read, analysis_options, options, baseline ? &*baseline : nullptr,
                     baseline_analysis ? &*baseline_analysis : nullptr);
        if (stop_at_error && outcomes[i].error) {
          for (size_t s = stop.load(); i < s && !stop.compare_exchange_weak(s, i);) {
          }
        }
      }
    };
    unsigned threads = jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(inputs.size(), 1)));
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
    work();
    for (std::thread& t : workers) t.join();
    const size_t last = stop.load();
    for (size_t i = 0; i < inputs.size() && i <= last; ++i) {
      if (Scored& s = outcomes[i]; s.table) {
        std::move(s.table->rows.begin(), s.table->rows.end(), std::back_inserter(table.rows));
        s.table.reset();
      }
    }
  }
  py::list errors;
  std::vector<std::pair<std::string, std::string>> warnings;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Scored& s = outcomes[i];
    for (const std::string& w : s.warnings) warnings.emplace_back(inputs[i].name(), w);
    if (!s.error) continue;
    py::dict e = ErrorDict(*s.error);
    e["internal"] = s.internal;
    errors.append(e);
    if (stop_at_error) break;
  }
  return py::make_tuple(Columns(table), errors, Warnings(warnings));
}

// One side of a comparison: a path to read, or a snapshot already loaded.
using Side = std::variant<std::string, std::shared_ptr<LoadedSnapshot>>;

// A side read (when it is a path) and analysed as `cookgraph diff` does: with
// the snapshot's own budget.
struct Read {
  std::string file;
  std::optional<Snapshot> snapshot;  // when read here
  std::optional<Analysis> analysis;
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
  Result<Snapshot> snapshot = ReadInput({out.file}, options);
  if (!snapshot) throw RaisedError{ErrorKind::kInput, snapshot.error()};
  out.snapshot = std::move(*snapshot);
  out.analysis = Analyse(*out.snapshot);
  out.s = &*out.snapshot;
  out.a = &*out.analysis;
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
    const DiffInput input{before.file, after.file, *before.s, *after.s, diff};
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
