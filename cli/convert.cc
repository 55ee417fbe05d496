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
