// `cookgraph trace INPUT -o trace.json`: the network as a Chrome trace for
// Perfetto (ui.perfetto.dev) or chrome://tracing: one track per node in
// topological order, each frame's cooks laid out on it, the critical path as
// flow events (writers/chrome_trace_writer.h).

#include <cstdio>

#include "base/text.h"
#include "cli/command.h"
#include "cli/input.h"
#include "pipeline/pipeline.h"
#include "writers/chrome_trace_writer.h"

namespace cookgraph::cli {
namespace {

struct TraceArgs {
  InputArgs input;
  std::string output;
};

int RunTrace(const TraceArgs& args) {
  Judged read;
  if (Status ok = pipeline::ReadAndAnalyse(Input{args.input.paths}, args.input.options(), {}, read);
      !ok) {
    PrintError(ok.error());
    return kExitInput;
  }
  const Snapshot* snapshot = &read.snapshot;
  const Analysis& analysis = read.analysis;
  for (const std::string& w : analysis.warnings) PrintWarning(args.input.name(), w);
  Status written = WriteTraceFile(*snapshot, analysis, args.output);
  if (!written) {
    PrintError(written.error());
    return args.output == "-" ? kExitInternal : kExitInput;
  }
  if (args.output != "-") {
    std::fprintf(stderr, "cookgraph: wrote %s (%zu node tracks, %zu frames); open it in "
                 "https://ui.perfetto.dev or chrome://tracing\n",
                 Printable(args.output).c_str(), snapshot->network.size(),
                 snapshot->samples.frame_count());
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupTrace(CLI::App& sub) {
  auto args = std::make_shared<TraceArgs>();
  AddInputArgument(sub, args->input);
  sub.add_option("-o,--output", args->output, "where to write the trace (.json; - = standard output)")
      ->required();
  sub.footer(
      "Frames are ProfilerStep#N spans on the first track; each node's cooks start when the\n"
      "nodes it depends on have finished. Reading the trace back gives the same nodes and\n"
      "per-frame cook times.\n"
      "Examples:\n"
      "  cookgraph trace examples/touchdesigner_feedback.json -o trace.json\n"
      "  cookgraph trace pipeline.dot trace.log -o gst_trace.json");
  return [args] { return RunTrace(*args); };
}

}  // namespace cookgraph::cli
