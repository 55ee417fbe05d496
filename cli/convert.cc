// `cookgraph convert INPUT -o OUT`: the same snapshot in another spelling.

#include <cstdio>

#include "adapters/snapshot_reader.h"
#include "adapters/snapshot_writer.h"
#include "cli/command.h"

namespace cookgraph::cli {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
};

int RunConvert(const ConvertArgs& args) {
  Result<Snapshot> snapshot = ReadSnapshotFile(args.input);
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  for (const std::string& w : snapshot->warnings) PrintWarning(args.input, w);
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
  sub.add_option("INPUT", args->input, "a snapshot file (.json, .json.gz, .yaml, .yml) or -")
      ->required();
  sub.add_option("-o,--output", args->output,
                 "where to write; the extension picks the spelling: .json, .json.gz, .yaml, "
                 ".yml (- = JSON on standard output)")
      ->required();
  sub.footer(
      "Examples:\n"
      "  cookgraph convert net.json -o net.yaml\n"
      "  cookgraph convert net.yaml -o net.json.gz");
  return [args] { return RunConvert(*args); };
}

}  // namespace cookgraph::cli
