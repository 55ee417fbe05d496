// `cookgraph graph INPUT`: the structure of one network.

#include "adapters/graph_writers.h"
#include "cli/command.h"
#include "cli/input.h"
#include "metrics/analysis.h"

namespace cookgraph::cli {
namespace {

struct GraphArgs {
  InputArgs input;
  std::string format = "text";
};

int RunGraph(const GraphArgs& args) {
  Result<Snapshot> snapshot = ReadInput(args.input.paths, args.input.options());
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  Analysis analysis = Analyse(*snapshot);
  for (const std::string& w : analysis.warnings) PrintWarning(args.input.name(), w);
  GraphFormat format = args.format == "json"  ? GraphFormat::kJson
                       : args.format == "dot" ? GraphFormat::kDot
                                              : GraphFormat::kText;
  if (!WriteStdout(RenderGraph(format, args.input.name(), *snapshot, analysis)) || std::fflush(stdout)) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupGraph(CLI::App& sub) {
  auto args = std::make_shared<GraphArgs>();
  AddInputArgument(sub, args->input);
  sub.add_option("--format", args->format, "output: text (default), json or dot")
      ->check(CLI::IsMember({"text", "json", "dot"}));
  sub.footer(
      "Examples:\n"
      "  cookgraph graph examples/touchdesigner_feedback.json\n"
      "  cookgraph graph net.json --format dot | dot -Tsvg > net.svg");
  return [args] { return RunGraph(*args); };
}

}  // namespace cookgraph::cli
