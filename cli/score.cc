// `cookgraph score INPUT...`: rank the nodes of one or many snapshots.
//
// Files are read and analysed by -j worker threads; the main thread writes each
// result in input order as soon as it and all before it are done, so output
// starts early and memory holds only the results not yet written.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "adapters/input_files.h"
#include "adapters/input_reader.h"
#include "cli/command.h"
#include "cli/input.h"
#include "cli/progress.h"
#include "metrics/analysis.h"
#include "metrics/diff.h"
#include "writers/score.h"

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
};

// The K-th (1-based) of N contiguous slices of `files`. A slice may be empty
// (more shards than files): that is not an error, an array job just has
// nothing to do.
Result<std::vector<Input>> Shard(const std::vector<Input>& files,
                                       const std::string& spec) {
  auto bad = [&] {
    return Error{.where = "--shard",
                 .message = "expected K/N with 1 <= K <= N <= 1000000 (e.g. 2/8), got '" +
                            spec.substr(0, 40) + "'"};
  };
  size_t slash = spec.find('/');
  if (slash == std::string::npos) return bad();
  auto number = [](std::string_view text, uint64_t& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
  };
  uint64_t k = 0, n = 0;
  if (!number(std::string_view(spec).substr(0, slash), k) ||
      !number(std::string_view(spec).substr(slash + 1), n) || n == 0 || n > 1000000 || k == 0 ||
      k > n) {
    return bad();
  }
  size_t begin = files.size() * (k - 1) / n;
  size_t end = files.size() * k / n;
  return std::vector<Input>(files.begin() + begin, files.begin() + end);
}

// What one worker made of one file.
struct Outcome {
  bool done = false;
  bool internal = false;              // the error is cookgraph's, not the input's
  std::string text;                   // the rendered fragment
  std::vector<std::string> warnings;  // to print on standard error
  std::optional<Error> error;
};

int RunScore(const ScoreArgs& args) {
  ScoreFormat format = ScoreFormat::kTable;
  if (args.format == "json") format = ScoreFormat::kJson;
  else if (args.format == "csv") format = ScoreFormat::kCsv;
  else if (args.format == "md") format = ScoreFormat::kMarkdown;

  ScoreOptions options;
  options.sort = *ParseSortKey(args.sort);  // CLI11 checked the choice
  const bool human = format == ScoreFormat::kTable || format == ScoreFormat::kMarkdown;
  options.top = args.top >= 0 ? static_cast<size_t>(args.top) : (human ? 20 : 0);
  options.group_by_container = args.group_by == "container";
  options.color = format == ScoreFormat::kTable && UseColor();
  AnalysisOptions analysis_options;
  analysis_options.budget_ms = args.budget_ms;

  // The baseline is read and analysed once; workers only read it.
  std::optional<Snapshot> baseline;
  std::optional<Analysis> baseline_analysis;
  if (!args.baseline.empty()) {
    if (options.group_by_container) {
      PrintError(Error{.where = "--baseline",
                       .message = "compares nodes, not containers: leave out --group-by"});
      return kExitInput;
    }
    Result<Snapshot> read = ReadInput({args.baseline}, args.input.options());
    if (!read) {
      PrintError(read.error());
      return kExitInput;
    }
    baseline = std::move(*read);
    baseline_analysis = Analyse(*baseline, analysis_options);
    options.baseline_file = args.baseline;
  }

  InputList inputs = ExpandInputs(args.inputs);
  std::vector<Error> errors = inputs.errors;
  for (const Error& e : errors) PrintError(e);
  for (const Error& w : inputs.warnings) PrintWarning(w.file, w.message);
  std::vector<Input> files = std::move(inputs.inputs);
  if (!args.shard.empty()) {
    auto sharded = Shard(files, args.shard);
    if (!sharded) {
      PrintError(sharded.error());
      return kExitInput;
    }
    files = std::move(*sharded);
  }

  std::vector<Outcome> outcomes(files.size());
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      Outcome outcome;
      // A worker must not throw: one file's failure (even out of memory) is
      // that file's error, and the batch goes on.
      try {
        Result<Snapshot> snapshot = ReadInput(files[i].paths, args.input.options());
        if (!snapshot) {
          outcome.error = snapshot.error();
        } else {
          Analysis analysis = Analyse(*snapshot, analysis_options);
          outcome.warnings = analysis.warnings;
          std::optional<SnapshotDiff> diff;
          if (baseline) {
            diff = CompareSnapshots(*baseline, *baseline_analysis, *snapshot, analysis);
          }
          const std::string name = files[i].name();
          outcome.text = RenderScoreSnapshot(
              format, {name, *snapshot, analysis, diff ? &*diff : nullptr, args.baseline}, options);
        }
      } catch (const std::bad_alloc&) {
        outcome = Outcome{.internal = true};
        outcome.error = Error{.file = files[i].name(), .message = "out of memory"};
      } catch (const std::exception& e) {
        outcome = Outcome{.internal = true};
        outcome.error =
            Error{.file = files[i].name(), .message = std::string("internal error: ") + e.what()};
      }
      outcome.done = true;
      std::lock_guard lock(mutex);
      outcomes[i] = std::move(outcome);
      ready.notify_all();
    }
  };
  unsigned jobs = args.jobs != 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(files.size(), 1)));
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < jobs; ++j) workers.emplace_back(work);

  Progress progress(files.size(), StderrIsTerminal() && files.size() > 1);
  bool written_ok = WriteStdout(RenderScoreHeader(format, options));
  bool first = true;
  bool internal = false;
  for (size_t i = 0; i < files.size(); ++i) {
    Outcome outcome;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return outcomes[i].done; });
      outcome = std::move(outcomes[i]);
    }
    progress.Step(files[i].name());
    if (outcome.error) {
      progress.Clear();
      PrintError(*outcome.error);
      errors.push_back(*outcome.error);
      internal |= outcome.internal;
      continue;
    }
    if (!outcome.warnings.empty()) progress.Clear();
    for (const std::string& w : outcome.warnings) PrintWarning(files[i].name(), w);
    if (!first) written_ok &= WriteStdout(RenderScoreSeparator(format));
    first = false;
    written_ok &= WriteStdout(outcome.text);
  }
  for (std::thread& t : workers) t.join();
  progress.Clear();
  written_ok &= WriteStdout(RenderScoreFooter(format, errors));
  written_ok &= std::fflush(stdout) == 0;
  if (!written_ok) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  if (internal) return kExitInternal;
  return errors.empty() ? kExitOk : kExitInput;
}

}  // namespace

std::function<int()> SetupScore(CLI::App& sub) {
  auto args = std::make_shared<ScoreArgs>();
  sub.add_option("INPUT", args->inputs,
                 "snapshots and Chrome traces (files, or - for standard input), GStreamer "
                 "recordings (a .dot dump and its log, or their folder), and directories "
                 "(searched recursively for .json, .yaml, .yml files, plain or .gz, and "
                 "GStreamer folders)")
      ->required();
  AddFormatOptions(sub, args->input);
  sub.add_option("--format", args->format, "output: table (default), json, csv or md")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}));
  sub.add_option("--top", args->top,
                 "rows per snapshot; 0 = all (default: 20 for table and md, all for json and csv)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--sort", args->sort, "rank by score (default), avg, p95, max, per-frame, gpu or upstream")
      ->check(CLI::IsMember({"score", "avg", "p95", "max", "per-frame", "gpu", "upstream"}));
  AddBudgetOption(sub, args->budget_ms);
  sub.add_option("--group-by", args->group_by, "roll the rows up by container")
      ->check(CLI::IsMember({"container"}));
  sub.add_option("-j,--jobs", args->jobs, "worker threads (default: one per core)")
      ->check(CLI::Range(1u, 1024u));
  sub.add_option("--shard", args->shard,
                 "score only the K-th of N slices of the sorted input list (K/N, e.g. 2/8)");
  sub.add_option("--baseline", args->baseline,
                 "compare every input with this snapshot (as `cookgraph diff` does): adds the "
                 "change of avg, p95, ms/frame and score, the p-value and the flags R "
                 "(regressed), I (improved), N (new)");
  sub.footer(
      "Examples:\n"
      "  cookgraph score examples/touchdesigner_feedback.json --top 10\n"
      "  cookgraph score today.json --baseline yesterday.json\n"
      "  cookgraph score snapshots/ --format csv -j 2 > scores.csv\n"
      "  cookgraph score snapshots/ --format json --shard 3/8 > shard3.json");
  return [args] { return RunScore(*args); };
}

}  // namespace cookgraph::cli
