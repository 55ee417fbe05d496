// `cookgraph convert INPUT -o OUT`: the same snapshot in another spelling, or
// any input cookgraph reads (a Chrome trace, a GStreamer recording) as a
// native snapshot.

#include <cstdio>

#include "cli/command.h"
#include "cli/input.h"
#include "writers/snapshot_writer.h"

namespace cookgraph::cli {
namespace {

struct ConvertArgs {
  InputArgs input;
  std::string output;
};

int RunConvert(const ConvertArgs& args) {
  Result<Snapshot> snapshot = ReadInput(args.input.paths, args.input.options());
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  for (const std::string& w : snapshot->warnings) PrintWarning(args.input.name(), w);
  // What the native format has no place for (docs/commands.md#cookgraph-convert).
  if (!snapshot->timelines.empty()) {
    PrintWarning(args.input.name(),
                 "the native snapshot keeps the nodes, edges and per-frame samples, not the "
                 "trace's timeline: the event critical path, GPU time, memory and ranks are "
                 "left out");
  }
  if (snapshot->streaming) {
    PrintWarning(args.input.name(),
                 "the native snapshot keeps the elements, edges, samples and frame times, not "
                 "the streaming threads and latency; buffers no thread worked on are written "
                 "without a frame time, so reading it back counts their nodes' times as theirs");
  }
  Status written = WriteSnapshotFile(*snapshot, args.output);
  if (!written) {
    PrintError(written.error());
    return kExitInput;
  }
  if (args.output != "-") {
    std::fprintf(stderr, "cookgraph: wrote %s (%zu nodes, %zu frames)\n", args.output.c_str(),
                 snapshot->network.size(), snapshot->samples.frame_count());
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupConvert(CLI::App& sub) {
  auto args = std::make_shared<ConvertArgs>();
  AddInputArgument(sub, args->input);
  sub.add_option("-o,--output", args->output,
                 "where to write; the extension picks the spelling: .json, .json.gz, .yaml, "
                 ".yml (- = JSON on standard output)")
      ->required();
  sub.footer(
      "Examples:\n"
      "  cookgraph convert net.json -o net.yaml\n"
      "  cookgraph convert net.yaml -o net.json.gz\n"
      "  cookgraph convert trace.pt.trace.json.gz -o model.json");
  return [args] { return RunConvert(*args); };
}

}  // namespace cookgraph::cli
