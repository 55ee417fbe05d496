// `cookgraph graph INPUT`: the structure of one network.

#include "adapters/graph_writers.h"
#include "adapters/snapshot_reader.h"
#include "cli/command.h"
#include "metrics/analysis.h"

namespace cookgraph::cli {
namespace {

struct GraphArgs {
  std::string input;
  std::string format = "text";
};

int RunGraph(const GraphArgs& args) {
  Result<Snapshot> snapshot = ReadSnapshotFile(args.input);
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  Analysis analysis = Analyse(*snapshot);
  for (const std::string& w : analysis.warnings) PrintWarning(args.input, w);
  GraphFormat format = args.format == "json"  ? GraphFormat::kJson
                       : args.format == "dot" ? GraphFormat::kDot
                                              : GraphFormat::kText;
  if (!WriteStdout(RenderGraph(format, args.input, *snapshot, analysis)) || std::fflush(stdout)) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupGraph(CLI::App& sub) {
  auto args = std::make_shared<GraphArgs>();
  sub.add_option("INPUT", args->input, "a snapshot file, or - for standard input")->required();
  sub.add_option("--format", args->format, "output: text (default), json or dot")
      ->check(CLI::IsMember({"text", "json", "dot"}));
  sub.footer(
      "Examples:\n"
      "  cookgraph graph examples/touchdesigner_feedback.json\n"
      "  cookgraph graph net.json --format dot | dot -Tsvg > net.svg");
  return [args] { return RunGraph(*args); };
}

}  // namespace cookgraph::cli
