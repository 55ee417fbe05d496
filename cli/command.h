#ifndef COOKGRAPH_CLI_COMMAND_H_
#define COOKGRAPH_CLI_COMMAND_H_

// One subcommand, one file in cli/; main.cc registers them from a table.

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/error.h"

namespace cookgraph::cli {

/// Exit codes (docs/architecture.md#errors-and-exit-codes).
enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitInput = 2,  // usage or input error
  kExitLlm = 3,
  kExitRegression = 4,
};

/// Adds the command's options to `sub` and returns what runs it after parsing.
using CommandSetup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandEntry {
  const char* name;
  const char* summary;  // one line for `cookgraph --help`
  CommandSetup setup;
};

std::function<int()> SetupScore(CLI::App& sub);
std::function<int()> SetupGraph(CLI::App& sub);
std::function<int()> SetupConvert(CLI::App& sub);
std::function<int()> SetupReport(CLI::App& sub);
std::function<int()> SetupAsk(CLI::App& sub);
std::function<int()> SetupTrace(CLI::App& sub);
std::function<int()> SetupDiff(CLI::App& sub);
std::function<int()> SetupWatch(CLI::App& sub);
std::function<int()> SetupServe(CLI::App& sub);
std::function<int()> SetupHistory(CLI::App& sub);
std::function<int()> SetupMerge(CLI::App& sub);
std::function<int()> SetupWhatIf(CLI::App& sub);
std::function<int()> SetupRecord(CLI::App& sub);
std::function<int()> SetupMcp(CLI::App& sub);

/// `cookgraph score DIR` as a table, for `record` (cli/score.cc); the exit code.
int ScoreRecording(const std::string& dir);

/// Prints "cookgraph: error: <file:line:col: ...>" on standard error.
void PrintError(const Error& error);
/// Prints "cookgraph: warning: <file>: <text>" on standard error.
void PrintWarning(const std::string& file, const std::string& text);

/// True when standard output should get ANSI colours: a terminal, NO_COLOR unset,
/// TERM not "dumb".
bool UseColor();
/// True when standard error is a terminal (progress is shown only then).
bool StderrIsTerminal();

/// Writes `text` to standard output; false when that fails (closed pipe, full disk).
bool WriteStdout(std::string_view text);

/// Writes a command's whole result to `output` (atomically), or to standard
/// output for "-"; prints the error and returns the exit code when that fails.
int WriteResult(const std::string& output, const std::string& text);

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_COMMAND_H_
