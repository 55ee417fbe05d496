#ifndef COOKGRAPH_CLI_INPUT_H_
#define COOKGRAPH_CLI_INPUT_H_

// The INPUT of the commands that read one network, and the options every
// reading command has: --format-in, --frame-marker and --limit.

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/input_reader.h"
#include "metrics/trace_summary.h"

namespace cookgraph::cli {

struct InputArgs {
  /// One input: a file, "-", a folder holding a GStreamer recording, or a
  /// GStreamer dump and its log.
  std::vector<std::string> paths;
  std::optional<std::string> format_in;
  std::optional<std::string> frame_marker;
  bool keep_warmup = false;
  bool hta_rounding = false;
  std::vector<std::string> limits;  // --limit KEY=VALUE, in order (checked by CLI11)
  std::optional<double> budget_ms;  // --budget-ms, where the command has it

  /// The paths joined by " + ", for messages and reports.
  std::string name() const;
  ReadOptions options() const;
};

/// Adds --format-in, --frame-marker and --limit.
void AddFormatOptions(CLI::App& sub, InputArgs& args);

/// Adds --budget-ms (a frame budget in ms > 0) into `budget_ms`.
void AddBudgetOption(CLI::App& sub, std::optional<double>& budget_ms);

/// Adds --step, --annotation and --instance: the window of a trace's event
/// critical path (docs/architecture.md#event-critical-path).
void AddPathWindowOptions(CLI::App& sub, PathWindow& window);

/// Adds the positional INPUT (one path, or a GStreamer dump and its log) and
/// the format options.
void AddInputArgument(CLI::App& sub, InputArgs& args);

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_INPUT_H_
