// `cookgraph score INPUT...`: rank the nodes of one or many snapshots.
//
// Inputs are scored by the pipeline's batch pool (pipeline/batch.h) on -j worker
// threads; this thread writes each result in input order as soon as it and
// all before it are done, so output starts early and memory holds only the
// results not yet written.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "adapters/input_files.h"
#include "base/text.h"
#include "cli/command.h"
#include "cli/input.h"
#include "cli/progress.h"
#include "cli/shard.h"
#include "pipeline/batch.h"
#include "pipeline/score.h"
#include "store/history.h"
#include "store/store.h"
#include "writers/score.h"
#include "writers/summary.h"

namespace cookgraph::cli {
namespace {

struct ScoreArgs {
  std::vector<std::string> inputs;
  InputArgs input;  // --format-in and --frame-marker only: `inputs` are many
  std::string format = "table";
  int top = -1;  // -1 = the format's default
  std::string sort = "score";
  std::optional<double> budget_ms;
  std::string group_by;
  unsigned jobs = 0;  // 0 = one per core
  std::string shard;
  std::string baseline;  // --baseline FILE; "" = none
  std::string store;     // --store DB; "" = none
  std::string label;     // --label TEXT
  std::string series;    // --name SERIES: the stored snapshot's series
  PathWindow window;     // --step, --annotation, --instance
};

// " step=N" or " annotation=NAME instance=K" when the path's window is
// chosen, else nothing (so that parts made without these options still merge).
std::string PathWindowText(const PathWindow& window) {
  if (window.step) return fmt::format(" step={}", *window.step);
  if (window.annotation) {
    return fmt::format(" annotation={} instance={}", *window.annotation, window.instance);
  }
  return "";
}

// The options that shape the output, for a shard's record: parts made with
// different ones cannot be merged (docs/commands.md#shards-and-merging).
std::string OptionsText(const ScoreArgs& args) {
  auto or_dash = [](const std::optional<std::string>& v) { return v ? *v : std::string("-"); };
  std::string limits;
  for (const std::string& l : args.input.limits) limits += (limits.empty() ? "" : ";") + l;
  return fmt::format(
      "format={} sort={} top={} budget-ms={} group-by={} baseline={} format-in={} "
      "frame-marker={} limit={}{}",
      args.format, args.sort, args.top, args.budget_ms ? fmt::format("{}", *args.budget_ms) : "-",
      args.group_by.empty() ? "-" : args.group_by, args.baseline.empty() ? "-" : args.baseline,
      or_dash(args.input.format_in), or_dash(args.input.frame_marker),
      limits.empty() ? "-" : limits, PathWindowText(args.window));
}

SnapshotSummary FailedSummary(const std::string& file, const Error& error) {
  SnapshotSummary s;
  s.file = file;
  s.error = error.Format();
  return s;
}

// The table formats of --format (the summary ones are SummaryFormatOf's).
ScoreFormat ScoreFormatOf(const std::string& format) {
  if (format == "json") return ScoreFormat::kJson;
  if (format == "csv") return ScoreFormat::kCsv;
  if (format == "md") return ScoreFormat::kMarkdown;
  return ScoreFormat::kTable;
}

std::optional<SummaryFormat> SummaryFormatOf(const std::string& format) {
  if (format == "summary") return SummaryFormat::kTable;
  if (format == "summary-csv") return SummaryFormat::kCsv;
  if (format == "summary-json") return SummaryFormat::kJson;
  return std::nullopt;
}

// --name and --label name what --store keeps: an error without it.
bool StoreNamesHaveAStore(const ScoreArgs& args) {
  if (!args.series.empty() && args.store.empty()) {
    PrintError(Error{.where = "--name", .message = "names a stored series: give --store DB too"});
    return false;
  }
  if (!args.label.empty() && args.store.empty()) {
    PrintError(Error{.where = "--label", .message = "names a stored run: give --store DB too"});
    return false;
  }
  return true;
}

// --baseline FILE, read and analysed once (workers only read it) into
// `baseline`; false (the error printed) when it cannot be.
bool ReadBaselineArg(const ScoreArgs& args, const AnalysisOptions& analysis_options,
                     ScoreOptions& options, std::optional<pipeline::Baseline>& baseline) {
  if (args.baseline.empty()) return true;
  if (options.group_by_container) {
    PrintError(Error{.where = "--baseline",
                     .message = "compares nodes, not containers: leave out --group-by"});
    return false;
  }
  Result<pipeline::Baseline> read =
      pipeline::ReadBaseline(args.baseline, args.input.options(), analysis_options);
  if (!read) {
    PrintError(read.error());
    return false;
  }
  baseline = std::move(*read);
  options.baseline_file = args.baseline;
  return true;
}

// --shard I/N: this part's slice of `files` and its record (JSON) in
// `shard_json`; errors of arguments that gave no input belong to the first
// shard alone, so that the merged parts report each once, as one unsharded
// run does. False (the error printed) when the spec is wrong.
bool TakeShard(const ScoreArgs& args, std::vector<Input>& files, std::vector<Error>& errors,
               std::string& shard_json) {
  if (args.shard.empty()) return true;
  Result<ShardSpec> shard =
      ParseShard(args.shard, [](const char* name) { return std::getenv(name); });
  if (!shard) {
    PrintError(shard.error());
    return false;
  }
  shard_json = ShardRecordJson(ShardRecord{.shard = *shard,
                                           .inputs = files.size(),
                                           .list = ListDigest(files),
                                           .options = OptionsText(args)});
  if (shard->index != 0) errors.clear();
  files = Slice(files, *shard);
  return true;
}

// Opens --store DB and begins the run, before any work, so that a wrong DB
// fails fast: kExitOk, or the exit code (the error printed).
int BeginStoredRun(const ScoreArgs& args, std::unique_ptr<RunStore>& store, int64_t& run_id) {
  if (args.store.empty()) return kExitOk;
  Result<std::unique_ptr<RunStore>> opened = OpenRunStore(args.store);
  if (!opened) {
    PrintError(opened.error());
    return kExitInput;
  }
  store = std::move(*opened);
  Result<int64_t> begun = store->BeginRun(RunInfo{
      .label = args.label, .options = OptionsText(args), .version = COOKGRAPH_VERSION});
  if (!begun) {
    PrintError(begun.error());
    return kExitInternal;
  }
  run_id = *begun;
  return kExitOk;
}

// The series a stored snapshot joins in the history: --name, or for a trace
// PyTorch named WORKER.TIMESTAMP.pt.trace.json, its folder and named worker.
void NameSeries(const ScoreArgs& args, StoredSnapshot& stored) {
  std::optional<std::string> series = KinetoSeries(stored.summary.file);
  if (!args.series.empty()) series = args.series;
  if (!series) return;
  stored.summary.name = *series;
  // Each node row repeats the snapshot's name (score --format csv's "name").
  const auto column = std::find(stored.nodes.columns.begin(), stored.nodes.columns.end(), "name");
  if (column != stored.nodes.columns.end()) {
    const auto at = static_cast<size_t>(column - stored.nodes.columns.begin());
    for (std::vector<ScoreValue>& row : stored.nodes.rows) {
      if (at < row.size()) row[at] = *series;
    }
  }
}

// The inputs the arguments name into `files` and the arguments' errors into
// `errors`, both printed with the warnings; false when --name is given for
// more than one input.
bool ExpandScoreInputs(const ScoreArgs& args, std::vector<Input>& files,
                       std::vector<Error>& errors) {
  InputList inputs = ExpandInputs(args.inputs);
  for (const Error& e : inputs.errors) PrintError(e);
  for (const Error& w : inputs.warnings) PrintWarning(w.file, w.message);
  files = std::move(inputs.inputs);
  if (!args.series.empty() && files.size() + inputs.errors.size() > 1) {
    PrintError(Error{.where = "--name",
                     .message = fmt::format("names the series of one input; {} were given (each "
                                            "series is a snapshot run after run)",
                                            files.size() + inputs.errors.size())});
    return false;
  }
  errors = inputs.errors;
  return true;
}

// The table's options: the format's default --top, colour at a terminal.
ScoreOptions ScoreOptionsOf(const ScoreArgs& args, ScoreFormat format, bool summary) {
  ScoreOptions options;
  options.sort = *ParseSortKey(args.sort);  // CLI11 checked the choice
  const bool human = format == ScoreFormat::kTable || format == ScoreFormat::kMarkdown;
  options.top = args.top >= 0 ? static_cast<size_t>(args.top) : (human ? 20 : 0);
  options.group_by_container = args.group_by == "container";
  options.color = !summary && format == ScoreFormat::kTable && UseColor();
  return options;
}

AnalysisOptions AnalysisOptionsOf(const ScoreArgs& args, SortKey sort) {
  AnalysisOptions analysis_options;
  analysis_options.budget_ms = args.budget_ms;
  analysis_options.gains = sort == SortKey::kGain;
  analysis_options.path_window = args.window;
  return analysis_options;
}

int RunScore(const ScoreArgs& args) {
  const ScoreFormat format = ScoreFormatOf(args.format);
  const std::optional<SummaryFormat> summary = SummaryFormatOf(args.format);
  ScoreOptions options = ScoreOptionsOf(args, format, summary.has_value());
  const AnalysisOptions analysis_options = AnalysisOptionsOf(args, options.sort);
  if (!StoreNamesHaveAStore(args)) return kExitInput;
  std::optional<pipeline::Baseline> baseline;
  if (!ReadBaselineArg(args, analysis_options, options, baseline)) return kExitInput;

  std::vector<Input> files;
  std::vector<Error> errors;
  if (!ExpandScoreInputs(args, files, errors)) return kExitInput;
  std::string shard_json;  // the shard's record in JSON and CSV output
  if (!TakeShard(args, files, errors, shard_json)) return kExitInput;

  std::unique_ptr<RunStore> store;
  int64_t run_id = 0;
  if (const int begun = BeginStoredRun(args, store, run_id); begun != kExitOk) return begun;
  pipeline::PackCache packs;
  const pipeline::ScoreRequest request{
      .read = args.input.options(),
      .analysis = analysis_options,
      .options = options,
      .format = summary ? std::nullopt : std::optional<ScoreFormat>(format),
      .rows = store ? std::optional<ScoreOptions>(ScoreOptions{}) : std::nullopt,
      .summary = summary.has_value() || store != nullptr,
      .baseline = baseline ? &*baseline : nullptr,
      .packs = &packs,
      .leave_to_exit = files.size() == 1};  // the process ends after it
  std::vector<pipeline::ScoredInput> outcomes(files.size());

  Progress progress(files.size(), StderrIsTerminal() && files.size() > 1);
  bool written_ok = true;
  if (!shard_json.empty() && (args.format == "csv" || args.format == "summary-csv")) {
    written_ok &= WriteStdout(std::string(kCsvShardPrefix) + shard_json + "\n");
  }
  const std::string extra = shard_json.empty() ? "" : "\"shard\":" + shard_json + ",";
  written_ok &= WriteStdout(summary ? RenderSummaryHeader(*summary, extra)
                                    : RenderScoreHeader(format, options, extra));
  std::vector<SnapshotSummary> table;  // --format summary: drawn at the end, aligned
  bool first = true;
  auto put_summary = [&](const SnapshotSummary& row) {
    if (*summary == SummaryFormat::kTable) {
      table.push_back(row);
      return;
    }
    if (!first && *summary == SummaryFormat::kJson) written_ok &= WriteStdout(",");
    first = false;
    written_ok &= WriteStdout(RenderSummaryRow(*summary, row));
  };
  if (summary) {
    for (const Error& e : errors) put_summary(FailedSummary(e.file, e));
  }
  bool internal = false;
  std::optional<Error> store_failed;
  auto keep = [&](StoredSnapshot stored) {
    if (!store || store_failed) return;
    NameSeries(args, stored);
    Status added = store->AddSnapshot(run_id, stored);
    if (!added) {
      store_failed = added.error();
      PrintError(*store_failed);
    }
  };
  auto take = [&](size_t i) {
    pipeline::ScoredInput outcome = std::move(outcomes[i]);
    progress.Step(files[i].name());
    if (!outcome.outcome) {
      const pipeline::Failure& failure = outcome.outcome.failure();
      progress.Clear();
      PrintError(failure.error);
      errors.push_back(failure.error);
      internal |= failure.internal;
      const SnapshotSummary failed = FailedSummary(files[i].name(), failure.error);
      if (summary) put_summary(failed);
      keep(StoredSnapshot{.summary = failed});
      return;
    }
    if (!outcome.warnings.empty()) progress.Clear();
    for (const std::string& w : outcome.warnings) PrintWarning(files[i].name(), w);
    if (summary) {
      put_summary(outcome.summary);
    } else {
      if (!first) written_ok &= WriteStdout(RenderScoreSeparator(format));
      first = false;
      for (const std::string& piece : outcome.text) written_ok &= WriteStdout(piece);
    }
    keep(StoredSnapshot{.summary = std::move(outcome.summary),
                        .nodes = outcome.rows ? std::move(*outcome.rows) : ScoreTable{}});
  };
  pipeline::RunInOrder(
      files.size(), pipeline::BatchOptions{.jobs = args.jobs},
      [&](size_t i) {
        outcomes[i] = pipeline::ScoreInput(files[i], request);
        return !outcomes[i].outcome;
      },
      take);
  progress.Clear();
  if (summary) {
    written_ok &= WriteStdout(*summary == SummaryFormat::kTable ? RenderSummaryTable(table)
                                                                : RenderSummaryFooter(*summary));
  } else {
    written_ok &= WriteStdout(RenderScoreFooter(format, errors));
  }
  const bool csv_shard = !shard_json.empty() && (args.format == "csv" || args.format == "summary-csv");
  if (csv_shard) written_ok &= WriteStdout(std::string(kCsvShardEnd) + "\n");
  written_ok &= std::fflush(stdout) == 0;
  if (store && !store_failed) {
    if (Status finished = store->FinishRun(run_id); !finished) {
      store_failed = finished.error();
      PrintError(*store_failed);
    }
  }
  if (!written_ok) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  if (internal || store_failed) return kExitInternal;
  return errors.empty() ? kExitOk : kExitInput;
}

}  // namespace

int ScoreRecording(const std::string& dir) {
  ScoreArgs args;
  args.inputs = {dir};
  return RunScore(args);
}

std::function<int()> SetupScore(CLI::App& sub) {
  auto args = std::make_shared<ScoreArgs>();
  sub.add_option("INPUT", args->inputs,
                 "snapshots and Chrome traces (files, or - for standard input), GStreamer "
                 "recordings (a .dot dump and its log, or their folder), and directories "
                 "(searched recursively for .json, .yaml, .yml files, plain or .gz, and "
                 "GStreamer folders)")
      ->required();
  AddFormatOptions(sub, args->input);
  sub.add_option("--format", args->format,
                 "output: table (default), json, csv or md; or one row per snapshot: "
                 "summary (a table), summary-csv or summary-json")
      ->check(CLI::IsMember({"table", "json", "csv", "md", "summary", "summary-csv", "summary-json"}));
  sub.add_option("--top", args->top,
                 "rows per snapshot; 0 = all (default: 20 for table and md, all for json and csv)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--sort", args->sort,
                 "rank by score (default), avg, p95, max, per-frame, gpu, upstream, or gain (the "
                 "predicted mean frame ms saved by halving the node, shown in a gain column; see "
                 "`cookgraph whatif`)")
      ->check(CLI::IsMember({"score", "avg", "p95", "max", "per-frame", "gpu", "upstream", "gain"}));
  AddBudgetOption(sub, args->budget_ms);
  AddPathWindowOptions(sub, args->window);
  sub.add_option("--group-by", args->group_by, "roll the rows up by container")
      ->check(CLI::IsMember({"container"}));
  sub.add_option("-j,--jobs", args->jobs, "worker threads (default: one per core)")
      ->check(CLI::Range(1u, 1024u));
  sub.add_option("--shard", args->shard,
                 "score only one of N slices of the sorted input list: K/N (1-based, e.g. 2/8) or "
                 "auto (0-based from SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or "
                 "JOB_COMPLETION_INDEX/JOB_COMPLETIONS); JSON and CSV parts join with `cookgraph merge`");
  sub.add_option("--store", args->store,
                 "record every scored snapshot (summary and node statistics) in a history "
                 "database: an SQLite file (e.g. runs.db) or a postgresql:// URL; see `cookgraph history`");
  sub.add_option("--label", args->label, "the stored run's label, e.g. a commit (with --store)");
  sub.add_option("--name", args->series,
                 "the series the input is stored under, which `history` compares run by run "
                 "(with --store; default: the snapshot's name, a trace's folder for PyTorch's "
                 "host_pid.timestamp.pt.trace.json)");
  sub.add_option("--baseline", args->baseline,
                 "compare every input with this snapshot (as `cookgraph diff` does): adds the "
                 "change of avg, p95, ms/frame and score, the p-value and the flags R "
                 "(regressed), I (improved), N (new)");
  sub.footer(
      "Examples:\n"
      "  cookgraph score examples/touchdesigner_feedback.json --top 10\n"
      "  cookgraph score today.json --baseline yesterday.json\n"
      "  cookgraph score snapshots/ --format csv -j 2 > scores.csv\n"
      "  cookgraph score snapshots/ --format summary\n"
      "  cookgraph score snapshots/ --format json --shard auto > part-$SLURM_ARRAY_TASK_ID.json\n"
      "  cookgraph score nightly/ --store runs.db --label $(git rev-parse --short HEAD)\n"
      "  cookgraph record -o rec -- gst-launch-1.0 videotestsrc num-buffers=60 ! theoraenc ! "
      "fakesink\n"
      "      (records a GStreamer pipeline with the tracers it needs; then: cookgraph score rec)");
  return [args] { return RunScore(*args); };
}

}  // namespace cookgraph::cli
