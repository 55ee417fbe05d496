#ifndef COOKGRAPH_TESTS_CLI_CLI_RUN_H_
#define COOKGRAPH_TESTS_CLI_CLI_RUN_H_

// What the end-to-end tests of the cookgraph executable share: where the
// source folder and the binary are, a run of the binary with its output kept,
// and the lines of a text.

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph::testing {

inline const std::string kSource = COOKGRAPH_SOURCE_DIR;
inline const std::string kBinary = COOKGRAPH_BINARY;

/// One run of the binary: its exit code (128 + the signal when one ended it),
/// standard output and standard error.
struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `cookgraph ARGS` through the shell from the source folder, without
/// colour, reading `stdin_file` and capturing standard output and standard
/// error separately.
inline CliRun Cookgraph(const std::string& args, const std::string& stdin_file = "/dev/null") {
  TempDir dir;
  const std::string command = "cd '" + kSource + "' && NO_COLOR=1 '" + kBinary + "' " + args +
                              " <'" + stdin_file + "' >'" + dir / "out" + "' 2>'" + dir / "err" +
                              "'";
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = Slurp(dir / "out");
  run.err = Slurp(dir / "err");
  return run;
}

/// The number of '\n' in `text`.
inline size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_CLI_CLI_RUN_H_
