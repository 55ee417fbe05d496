// `cookgraph diff BEFORE AFTER`: what changed between two snapshots of one
// network. Nodes are matched by id; each matched node's cook_ms samples are
// compared with Welch's t-test (one-sided: is AFTER slower?), so that noise is
// not called a regression. --fail-on-regression makes a regression exit 4, for
// CI gates.

#include "metrics/diff.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include "cli/command.h"
#include "cli/input.h"
#include "pipeline/pipeline.h"
#include "writers/diff_formats.h"

namespace cookgraph::cli {
namespace {

struct DiffArgs {
  std::string before_file, after_file;
  InputArgs input;  // --format-in and --frame-marker for both
  std::string format = "table";
  int top = 20;
  double alpha = 0.01;
  std::optional<double> min_change;
  std::string fail_on_regression;  // "" or "false" = off, "true" = on, else the threshold PCT
  std::string steps;               // --steps FIRST:LAST or --step N; "" = every frame
};

// --steps FIRST:LAST (or N): the inclusive range of frame (step) numbers.
std::optional<std::pair<int64_t, int64_t>> ParseSteps(const std::string& text) {
  const size_t colon = text.find(':');
  auto number = [](std::string_view s) -> std::optional<int64_t> {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
  };
  const std::string_view all(text);
  auto first = number(all.substr(0, colon));
  auto last = colon == std::string::npos ? first : number(all.substr(colon + 1));
  if (!first || !last || *last < *first) return std::nullopt;
  return std::pair{*first, *last};
}

// Keeps `snapshot`'s frames numbered within `range`; an Error naming `file`
// when none is. The timelines and recorded timing go: diff compares node and
// frame statistics, and those would no longer line up with the frames.
Status KeepSteps(Snapshot& snapshot, const std::string& file, std::pair<int64_t, int64_t> range) {
  const std::vector<int64_t>& index = snapshot.samples.frame_index();
  std::vector<size_t> keep;
  for (size_t f = 0; f < index.size(); ++f) {
    if (index[f] >= range.first && index[f] <= range.second) keep.push_back(f);
  }
  if (keep.empty()) {
    return Error{.file = file,
                 .message = fmt::format(
                     "--steps {}:{}: no frame or step numbered so (it has {} frames{})",
                     range.first, range.second, index.size(),
                     index.empty() ? ""
                                   : fmt::format(", numbered {} to {}", index.front(),
                                                 index.back()))};
  }
  snapshot.samples = snapshot.samples.KeepFrames(keep);
  snapshot.timelines.clear();
  snapshot.timing.reset();
  return {};
}

// What CLI11 stores for a bare --fail-on-regression, and for =false.
constexpr const char* kFailOn = "true";
constexpr const char* kFailOff = "false";

std::optional<double> ParsePercent(const std::string& text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0 ||
      v > 1e6) {
    return std::nullopt;
  }
  return v;
}

int RunDiff(const DiffArgs& args) {
  DiffOptions options;
  options.alpha = args.alpha;
  if (args.min_change) options.min_change_pct = *args.min_change;
  const bool gate = !args.fail_on_regression.empty() && args.fail_on_regression != kFailOff;
  if (gate && args.fail_on_regression != kFailOn) {
    std::optional<double> pct = ParsePercent(args.fail_on_regression);
    if (!pct) {
      PrintError(Error{.where = "--fail-on-regression",
                       .message = "expected a percentage >= 0 (e.g. --fail-on-regression=10), "
                                  "got '" +
                                  args.fail_on_regression.substr(0, 40) + "'"});
      return kExitInput;
    }
    if (args.min_change && *args.min_change != *pct) {
      PrintError(Error{.where = "--fail-on-regression",
                       .message = "gives a threshold other than --min-change; give it once"});
      return kExitInput;
    }
    options.min_change_pct = *pct;
  }

  const std::string& before_file = args.before_file;
  const std::string& after_file = args.after_file;
  std::optional<std::pair<int64_t, int64_t>> range;
  if (!args.steps.empty()) {
    range = ParseSteps(args.steps);
    if (!range) {
      PrintError(Error{.where = "--steps",
                       .message = "expected FIRST:LAST or N, whole numbers with FIRST <= LAST, "
                                  "got '" +
                                  args.steps.substr(0, 40) + "'"});
      return kExitInput;
    }
  }
  // Each input read, cut to the --steps window and analysed by the pipeline.
  Judged before_read, after_read;
  for (const auto& side : {std::pair{&before_read, &before_file}, {&after_read, &after_file}}) {
    const std::string& file = *side.second;
    const pipeline::Prepare keep = [&range, &file](Snapshot& snapshot) {
      return range ? KeepSteps(snapshot, file, *range) : Status{};
    };
    if (Status ok = pipeline::ReadAndAnalyse(Input{{file}}, args.input.options(), {}, *side.first, keep);
        !ok) {
      PrintError(ok.error());
      return kExitInput;
    }
  }
  const Snapshot* before = &before_read.snapshot;
  const Snapshot* after = &after_read.snapshot;
  const Analysis& before_analysis = before_read.analysis;
  const Analysis& after_analysis = after_read.analysis;
  for (const std::string& w : before_analysis.warnings) PrintWarning(before_file, w);
  for (const std::string& w : after_analysis.warnings) PrintWarning(after_file, w);
  const SnapshotDiff diff =
      CompareSnapshots(*before, before_analysis, *after, after_analysis, options);

  DiffFormat format = DiffFormat::kTable;
  if (args.format == "json")
    format = DiffFormat::kJson;
  else if (args.format == "md")
    format = DiffFormat::kMarkdown;
  else if (args.format == "csv")
    format = DiffFormat::kCsv;
  const std::string text = RenderDiff(format, {before_file, after_file, *before, *after, diff},
                                      {.top = static_cast<size_t>(args.top)});
  if (!WriteStdout(text) || std::fflush(stdout) != 0) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  if (gate && diff.regressed()) {
    const std::string_view word = after->info.frame_word();
    std::string what = diff.regressions == 0
                           ? fmt::format("the {} time regressed", word)
                           : fmt::format("{} node{} regressed{}", diff.regressions,
                                         diff.regressions == 1 ? "" : "s",
                                         diff.frames.regression
                                             ? fmt::format(", and the {} time", word)
                                             : std::string());
    std::fprintf(stderr, "cookgraph: %s (--fail-on-regression)\n", what.c_str());
    return kExitRegression;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupDiff(CLI::App& sub) {
  auto args = std::make_shared<DiffArgs>();
  const std::string what =
      "a snapshot or a Chrome trace (file, or - for standard input) or the folder of a "
      "GStreamer recording";
  sub.add_option("BEFORE", args->before_file, "the baseline: " + what)->required();
  sub.add_option("AFTER", args->after_file, "the run to judge: " + what)->required();
  AddFormatOptions(sub, args->input);
  auto* steps = sub.add_option("--steps", args->steps,
                               "compare only the frames (steps) numbered FIRST to LAST in both, "
                               "e.g. --steps 5:9 (ProfilerStep#5 to #9)");
  sub.add_option("--step", args->steps, "compare step N only: --steps N:N")->excludes(steps);
  sub.add_option("--format", args->format,
                 "output: table (default), json, csv (a row per node: matched, added, removed) "
                 "or md")
      ->check(CLI::IsMember({"table", "json", "csv", "md"}));
  sub.add_option("--top", args->top,
                 "node rows of the table and md besides every regression and improvement; 0 = "
                 "all (default 20; json and csv list all)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--alpha", args->alpha,
                 "significance level of the one-sided Welch t-test (default 0.01)")
      ->check(CLI::Range(1e-300, 0.5));
  sub.add_option("--min-change", args->min_change,
                 "smallest rise of a node's avg ms, in percent, that is a regression (default 5)")
      ->check(CLI::Range(0.0, 1e6));
  // A flag, so that it never takes the next argument (BEFORE) as its value;
  // a value needs "=".
  sub.add_flag("--fail-on-regression", args->fail_on_regression,
               "exit with code 4 when a node (or the frame time) regressed; "
               "--fail-on-regression=PCT also sets --min-change to PCT")
      ->option_text("[=PCT]");
  sub.footer(
      "A node regressed when its avg ms rose by more than --min-change percent and Welch's\n"
      "t-test on its per-frame cook times says AFTER is slower with p < --alpha.\n"
      "Exit codes: 0 ok (or regressions without --fail-on-regression), 2 usage or input error,\n"
      "4 a regression with --fail-on-regression.\n"
      "Examples:\n"
      "  cookgraph diff before.json after.json\n"
      "  cookgraph diff before.json after.json --format json > diff.json\n"
      "  cookgraph diff nightly/old.json.gz nightly/new.json.gz --fail-on-regression=10");
  return [args] { return RunDiff(*args); };
}

}  // namespace cookgraph::cli
