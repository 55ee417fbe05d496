// `cookgraph report INPUT -o FILE.(html|md)`: one snapshot's analysis and the
// knowledge pack's findings as a self-contained HTML page or GitHub Markdown.
//
// Offline only for now: asking an LLM (--ask) needs the advisor's prompt
// builder and endpoint settings, which are not built yet, so --ask is refused
// rather than answered with anything made up.

#include "advisor/report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "adapters/atomic_file.h"
#include "adapters/snapshot_reader.h"
#include "adapters/text.h"
#include "advisor/pack.h"
#include "advisor/rules.h"
#include "cli/command.h"
#include "metrics/analysis.h"

namespace cookgraph::cli {
namespace {

struct ReportArgs {
  std::string input;
  std::string output;
  std::string pack;  // "" = the built-in pack for the snapshot's engine
  std::optional<std::string> ask;
  bool no_llm = false;
};

enum class ReportFormat : uint8_t { kHtml, kMarkdown };

std::optional<ReportFormat> FormatFor(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (EndsWith(lower, ".html") || EndsWith(lower, ".htm")) return ReportFormat::kHtml;
  if (EndsWith(lower, ".md")) return ReportFormat::kMarkdown;
  return std::nullopt;
}

int RunReport(const ReportArgs& args) {
  if (args.ask) {
    PrintError(Error{.where = "--ask",
                     .message = "asking an LLM from a report is not available yet: this version "
                                "writes the offline report only (run without --ask)"});
    return kExitInput;
  }
  std::optional<ReportFormat> format = FormatFor(args.output);
  if (!format) {
    PrintError(Error{.file = args.output,
                     .message = "unknown report format: name the output FILE.html, FILE.htm or "
                                "FILE.md"});
    return kExitInput;
  }
  Result<Snapshot> snapshot = ReadSnapshotFile(args.input);
  if (!snapshot) {
    PrintError(snapshot.error());
    return kExitInput;
  }
  Analysis analysis = Analyse(*snapshot);
  for (const std::string& w : analysis.warnings) PrintWarning(args.input, w);

  Result<KnowledgePack> pack =
      args.pack.empty() ? BuiltinPack(snapshot->info.engine) : LoadPack(args.pack);
  if (!pack) {
    PrintError(pack.error());
    // A user's pack is input; a built-in one that fails to load is our fault.
    return args.pack.empty() ? kExitInternal : kExitInput;
  }
  const std::vector<Finding> findings = Evaluate(*pack, *snapshot, analysis);

  ReportInput input{.file = args.input,
                    .snapshot = *snapshot,
                    .analysis = analysis,
                    .findings = findings,
                    .advice = "",
                    .advice_note = args.no_llm
                                       ? "LLM advice: off (--no-llm); the findings above are the "
                                         "offline advice."
                                       : "LLM advice: none. This version writes the offline "
                                         "report only; asking an OpenAI-compatible endpoint "
                                         "(--ask) arrives with the advisor's prompt builder."};
  const std::string text =
      *format == ReportFormat::kHtml ? RenderReportHtml(input) : RenderReportMarkdown(input);
  Status written = WriteFileAtomically(args.output, text);
  if (!written) {
    PrintError(written.error());
    return kExitInput;
  }
  std::fprintf(stderr, "cookgraph: wrote %s (%zu nodes, %zu frames, %zu findings)\n",
               Printable(args.output).c_str(), snapshot->network.size(),
               snapshot->samples.frame_count(), findings.size());
  return kExitOk;
}

}  // namespace

std::function<int()> SetupReport(CLI::App& sub) {
  auto args = std::make_shared<ReportArgs>();
  sub.add_option("INPUT", args->input, "a snapshot file, or - for standard input")->required();
  sub.add_option("-o,--output", args->output,
                 "where to write; the extension picks the format: .html (or .htm), .md")
      ->required();
  sub.add_option("--pack", args->pack,
                 "a knowledge pack (YAML) of your own instead of the engine's built-in one");
  sub.add_option("--ask", args->ask,
                 "a question for an LLM endpoint (not available yet: offline reports only)");
  sub.add_flag("--no-llm", args->no_llm, "never ask an LLM: the offline findings only");
  sub.footer(
      "Examples:\n"
      "  cookgraph report examples/touchdesigner_feedback.json -o report.html\n"
      "  cookgraph report trace.json.gz -o report.md --pack my_rules.yaml");
  return [args] { return RunReport(*args); };
}

}  // namespace cookgraph::cli
