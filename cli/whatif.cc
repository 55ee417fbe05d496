// `cookgraph whatif INPUT [--node ID=F ...]`: the frame time predicted if
// nodes cooked faster (docs/commands.md#cookgraph-whatif).

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "cli/command.h"
#include "cli/input.h"
#include "pipeline/pipeline.h"
#include "metrics/whatif.h"
#include "writers/whatif_formats.h"

namespace cookgraph::cli {
namespace {

struct WhatIfArgs {
  InputArgs input;
  std::vector<std::string> nodes;  // --node ID=F, in order
  std::string format = "table";
  int top = -1;  // -1 = the format's default
  std::string output = "-";
};

int RunWhatIf(const WhatIfArgs& args) {
  Judged read;
  AnalysisOptions options;
  options.budget_ms = args.input.budget_ms;
  if (Status ok = pipeline::ReadAndAnalyse(Input{args.input.paths}, args.input.options(), options, read);
      !ok) {
    PrintError(ok.error());
    return kExitInput;
  }
  const Snapshot* snapshot = &read.snapshot;
  const Analysis& analysis = read.analysis;
  Result<std::vector<WhatIfChange>> changes =
      ParseWhatIfChanges(args.input.name(), args.nodes, snapshot->network);
  if (!changes) {
    PrintError(changes.error());
    return kExitInput;
  }
  for (const std::string& w : analysis.warnings) PrintWarning(args.input.name(), w);
  for (const WhatIfChange& c : *changes) {
    if (analysis.waiting[c.node]) {
      PrintWarning(args.input.name(),
                   fmt::format("--node {}: a {} waits, it does not work; the model leaves it "
                               "unchanged",
                               snapshot->network.node(c.node).id,
                               snapshot->network.node(c.node).family));
    }
  }
  const WhatIf whatif = WhatIf::Build(*snapshot, analysis);
  const WhatIfFormat format = args.format == "json" ? WhatIfFormat::kJson
                              : args.format == "md" ? WhatIfFormat::kMarkdown
                                                    : WhatIfFormat::kTable;
  const size_t top = args.top >= 0 ? static_cast<size_t>(args.top)
                                   : (format == WhatIfFormat::kJson ? 0 : 20);
  const std::string text = RenderWhatIf(format, args.input.name(), *snapshot, whatif, *changes, top);
  return WriteResult(args.output, text);
}

}  // namespace

std::function<int()> SetupWhatIf(CLI::App& sub) {
  auto args = std::make_shared<WhatIfArgs>();
  AddInputArgument(sub, args->input);
  AddBudgetOption(sub, args->input.budget_ms);
  sub.add_option("--node", args->nodes,
                 "ID=F: predict with node ID's cook time times F (0.5 = twice as fast, 0 = "
                 "removed or cached); repeat for several at once. Without it, every node halved "
                 "and removed, ranked by the mean time saved");
  sub.add_option("--format", args->format, "output: table (default), json or md")
      ->check(CLI::IsMember({"table", "json", "md"}));
  sub.add_option("--top", args->top, "show the N largest savings (default 20; json: all; 0 = all)")
      ->check(CLI::Range(0, 1000000));
  sub.add_option("-o,--output", args->output,
                 "write to FILE (atomically) instead of standard output ('-')");
  sub.footer(
      "Examples:\n"
      "  cookgraph whatif examples/touchdesigner_feedback.json\n"
      "  cookgraph whatif net.json --node /project1/fx/blur1=0.5 --node /project1/noise1=0\n"
      "  cookgraph whatif trace.json --format json");
  return [args] { return RunWhatIf(*args); };
}

}  // namespace cookgraph::cli
