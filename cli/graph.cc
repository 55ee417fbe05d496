// `cookgraph graph INPUT`: the structure of one network.

#include <cstdio>
#include <optional>

#include "cli/command.h"
#include "cli/input.h"
#include "pipeline/pipeline.h"
#include "writers/graph_formats.h"
#include "writers/heatmap/heatmap_svg.h"

namespace cookgraph::cli {
namespace {

struct GraphArgs {
  InputArgs input;
  std::string format = "text";
  std::string output = "-";  // "-" = standard output
  size_t max_nodes = HeatmapLimits{}.max_nodes;
  PathWindow window;  // --step, --annotation, --instance
};

// The heatmap of `snapshot` (--format svg); nullopt after printing the error.
std::optional<std::string> Svg(const GraphArgs& args, const Snapshot& snapshot,
                               const Analysis& analysis) {
  Result<Heatmap> heatmap =
      DrawHeatmap(args.input.name(), snapshot, analysis, {.max_nodes = args.max_nodes});
  if (!heatmap) {
    PrintError(heatmap.error());
    return std::nullopt;
  }
  for (const std::string& w : heatmap->warnings) PrintWarning(args.input.name(), "Graphviz: " + w);
  return std::move(heatmap->svg);
}

int RunGraph(const GraphArgs& args) {
  Judged read;
  if (Status ok = pipeline::ReadAndAnalyse(Input{args.input.paths}, args.input.options(),
                                           {.path_window = args.window}, read);
      !ok) {
    PrintError(ok.error());
    return kExitInput;
  }
  const Snapshot* snapshot = &read.snapshot;
  const Analysis& analysis = read.analysis;
  for (const std::string& w : analysis.warnings) PrintWarning(args.input.name(), w);
  if (args.window.chosen() && !(analysis.trace && analysis.trace->path)) {
    PrintError(Error{.file = args.input.name(),
                     .message = "no event critical path in the window chosen by --step or "
                                "--annotation (see the warning above)"});
    return kExitInput;
  }
  std::string text;
  if (args.format == "svg") {
    std::optional<std::string> svg = Svg(args, *snapshot, analysis);
    if (!svg) return kExitInternal;
    text = std::move(*svg);
  } else {
    GraphFormat format = args.format == "json"  ? GraphFormat::kJson
                         : args.format == "dot" ? GraphFormat::kDot
                                                : GraphFormat::kText;
    text = RenderGraph(format, args.input.name(), *snapshot, analysis);
  }
  return WriteResult(args.output, text);
}

}  // namespace

std::function<int()> SetupGraph(CLI::App& sub) {
  auto args = std::make_shared<GraphArgs>();
  AddInputArgument(sub, args->input);
  sub.add_option("--format", args->format,
                 "output: text (default), json, dot, or svg (the network heatmap, drawn by "
                 "Graphviz)")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}));
  AddPathWindowOptions(sub, args->window);
  sub.add_option("-o,--output", args->output,
                 "write to FILE (atomically) instead of standard output ('-')");
  sub.add_option("--max-nodes", args->max_nodes,
                 "svg: draw at most N nodes (default 400); a larger network is reduced to its 50 "
                 "costliest nodes, the critical path and their neighbours")
      ->check(CLI::Range(size_t{1}, size_t{100000}));
  sub.footer(
      "Examples:\n"
      "  cookgraph graph examples/touchdesigner_feedback.json\n"
      "  cookgraph graph net.json --format svg -o net.svg\n"
      "  cookgraph graph net.json --format dot | dot -Tsvg > net.svg");
  return [args] { return RunGraph(*args); };
}

}  // namespace cookgraph::cli
