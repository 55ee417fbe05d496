// The cookgraph executable: a table of subcommands, each in its own file.

#include <malloc.h>

#include <cstdio>
#include <exception>
#include <map>

#include "base/lazy_library.h"
#include "cli/command.h"

namespace cookgraph::cli {
namespace {

const CommandEntry kCommands[] = {
    {"score", "rank the nodes of one or many snapshots by cost", SetupScore},
    {"merge", "join the JSON or CSV parts of a sharded score into what one run writes",
     SetupMerge},
    {"whatif", "the frame time predicted if nodes cooked faster: what pays to fix", SetupWhatIf},
    {"record", "run a GStreamer pipeline with the tracers cookgraph reads, and score it",
     SetupRecord},
    {"graph", "topological order, feedback loops, critical path and edges of a network",
     SetupGraph},
    {"convert", "any input as a native snapshot: JSON, gzip-compressed JSON or YAML", SetupConvert},
    {"report", "a self-contained HTML or Markdown report: costs, loops, critical path, findings",
     SetupReport},
    {"ask", "ask an OpenAI-compatible LLM endpoint a question about a network", SetupAsk},
    {"trace", "the network as a Chrome trace for Perfetto: a track per node, the critical path",
     SetupTrace},
    {"diff", "what changed between two snapshots: per-node changes, Welch's t-test, regressions",
     SetupDiff},
    {"history", "the trend of stored runs (score --store) and the runs that got significantly worse",
     SetupHistory},
    {"watch", "live mode: rank nodes from per-frame metrics streamed over UDP, with alerts",
     SetupWatch},
    {"serve", "the local web explorer: the network, its frames, findings and questions, in a browser",
     SetupServe},
    {"mcp", "a Model Context Protocol server: the analysis's tools for the assistant you use",
     SetupMcp},
};

int Main(int argc, char** argv) {
  CLI::App app{"cookgraph: a profiler for node-graph dataflow engines", "cookgraph"};
  app.set_version_flag("--version", "cookgraph " COOKGRAPH_VERSION);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 internal error, 2 usage or input error, 3 LLM endpoint error,\n"
             "4 diff or history found a regression (--fail-on-regression).\n"
             "Run `cookgraph COMMAND --help` for a command's options and an example.");
  std::map<CLI::App*, std::function<int()>> runners;
  for (const CommandEntry& command : kCommands) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    runners[sub] = command.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "cookgraph: error: %s\nRun with --help for usage.\n", e.what());
    return kExitInput;
  }
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) return run();
  }
  return kExitInput;
}

}  // namespace
}  // namespace cookgraph::cli

int main(int argc, char** argv) {
  // Large blocks (a trace's event tables) in pages of their own from 2 MiB
  // on, given back when freed: glibc's default raises that bound after each
  // free of one, and the next tables then stay in the heap past their use
  // (a 200 MB trace peaked at 176 MB instead of 149 MB). Not 1 MiB: the JSON
  // reader's 1 MiB block, taken and given back per file, made scoring a
  // folder of 300 snapshots 10% slower. Those blocks are advised for huge
  // pages (huge_pages.cc).
  mallopt(M_MMAP_THRESHOLD, 2 << 20);
  try {
    return cookgraph::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "cookgraph: error: out of memory\n");
  } catch (const cookgraph::LibraryMissing& e) {  // libcurl, libpq, Graphviz: loaded on use
    std::fprintf(stderr, "cookgraph: error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cookgraph: internal error: %s\n", e.what());
  }
  return cookgraph::cli::kExitInternal;
}
