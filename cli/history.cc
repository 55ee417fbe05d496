// `cookgraph history DB`: the trend of the frame time and of the top nodes
// across the runs that `score --store DB` stored, and the runs where one of
// them got significantly worse than in the run before (Welch's t-test, as
// `diff`). --fail-on-regression makes a flag on the latest run exit 4, for CI
// gates (docs/commands.md#cookgraph-history).

#include "store/history.h"

#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "store/history_formats.h"
#include "store/store.h"

namespace cookgraph::cli {
namespace {

struct HistoryArgs {
  std::string store = "runs.db";
  std::string node, since, snapshot;
  int top = 5;
  std::string format = "table";
  double alpha = 0.01;
  double min_change = 5;
  bool fail_on_regression = false;
};

int RunHistory(const HistoryArgs& args) {
  HistoryOptions options;
  options.node = args.node;
  options.snapshot = args.snapshot;
  options.top = static_cast<size_t>(args.top);
  options.test.alpha = args.alpha;
  options.test.min_change_pct = args.min_change;
  if (!args.since.empty()) {
    if (Status s = ParseSince(args.since, options); !s) {
      PrintError(s.error());
      return kExitInput;
    }
  }
  Result<std::unique_ptr<RunStore>> store = OpenRunStore(args.store, StoreAccess::kRead);
  if (!store) {
    PrintError(store.error());
    return kExitInput;
  }
  for (const Error& w : (*store)->warnings()) PrintWarning(w.file, w.message);
  Result<std::vector<StoredRun>> runs = (*store)->ReadRuns();
  if (!runs) {
    PrintError(runs.error());
    return kExitInput;
  }
  Result<History> history = AnalyseHistory(*runs, options);
  if (!history) {
    PrintError(history.error());
    return kExitInput;
  }
  HistoryFormat format = HistoryFormat::kTable;
  if (args.format == "json") {
    format = HistoryFormat::kJson;
  } else if (args.format == "csv") {
    format = HistoryFormat::kCsv;
  }
  if (!WriteStdout(RenderHistory(format, *history, DisplayTarget(args.store))) ||
      std::fflush(stdout) != 0) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  if (args.fail_on_regression && history->latest_flagged) {
    std::fprintf(stderr,
                 "cookgraph: the latest complete run got significantly worse than the run "
                 "before (--fail-on-regression)\n");
    return kExitRegression;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupHistory(CLI::App& sub) {
  auto args = std::make_shared<HistoryArgs>();
  sub.add_option("DB", args->store,
                 "the history: an SQLite file (default runs.db) or a postgresql:// URL, as given "
                 "to `score --store`");
  sub.add_option("--node", args->node, "this node's trend and flags only (and the frame time's)");
  sub.add_option("--since", args->since,
                 "runs from this run id, or from this UTC date or time (2026-11-27, "
                 "2026-11-27T09:30); the run before still serves as the first one's comparison");
  sub.add_option("--snapshot", args->snapshot,
                 "this snapshot only: its name, or its file when it has none");
  sub.add_option("--top", args->top,
                 "top nodes in the trend: the highest scores of the latest run (default 5)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--format", args->format, "output: table (default), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sub.add_option("--alpha", args->alpha,
                 "significance level of the one-sided Welch t-test (default 0.01)")
      ->check(CLI::Range(1e-300, 0.5));
  sub.add_option("--min-change", args->min_change,
                 "smallest rise of a mean, in percent, that can flag a run (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  sub.add_flag("--fail-on-regression", args->fail_on_regression,
               "exit with code 4 when the latest complete run is flagged");
  sub.footer(
      "A run is flagged when the frame time or a node's avg ms rose by more than --min-change\n"
      "percent against the same snapshot in the run before, and Welch's t-test on the stored\n"
      "means and standard deviations says it is slower with p < --alpha. Incomplete runs\n"
      "(interrupted, or still storing) are shown but not judged.\n"
      "Exit codes: 0 ok, 1 internal error, 2 usage or input error (no such database, not a\n"
      "cookgraph history, a bad --since, an unknown --node), 4 a flag on the latest run with\n"
      "--fail-on-regression.\n"
      "Examples:\n"
      "  cookgraph score shot.json --store runs.db --label \"$(git rev-parse --short HEAD)\"\n"
      "  cookgraph history runs.db\n"
      "  cookgraph history runs.db --node /project1/blur1 --since 2026-11-01 --format csv\n"
      "  cookgraph history 'postgresql://ci@db.example/perf' --fail-on-regression");
  return [args] { return RunHistory(*args); };
}

}  // namespace cookgraph::cli
