#ifndef COOKGRAPH_CLI_LINE_READER_H_
#define COOKGRAPH_CLI_LINE_READER_H_

// The questions of `ask --chat` (docs/commands.md#cookgraph-ask): at a terminal, read
// with libedit (line editing, and the session's earlier questions on the up
// arrow); otherwise one question per line of standard input.

#include <optional>
#include <string>

namespace cookgraph::cli {

class LineReader {
 public:
  /// `terminal`: standard input and output are a terminal.
  explicit LineReader(bool terminal);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next question, trimmed, blank lines skipped; nullopt at the end
  /// (Ctrl-D, or the end of standard input). `prompt` is shown at a terminal.
  std::optional<std::string> Read(const std::string& prompt);

 private:
  bool terminal_;
};

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_LINE_READER_H_
