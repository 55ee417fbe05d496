#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/text.h"
#include "cli/command.h"
#include "writers/atomic_file.h"

namespace cookgraph::cli {

// Messages quote the input (ids, keys, values): control characters in them
// must not reach the terminal as escape sequences or line breaks, and an id of
// many kilobytes must not bury the message (its middle goes; the file, the
// place and the end of the message stay).
constexpr size_t kMaxMessageColumns = 400;

void PrintError(const Error& error) {
  std::string line = ClipMiddle(error.Format(), kMaxMessageColumns);
  std::fprintf(stderr, "cookgraph: error: %s\n", line.c_str());
}

void PrintWarning(const std::string& file, const std::string& text) {
  std::string line = TruncateMiddle(
      Printable(file) + (file.empty() ? "" : ": ") + Printable(text), kMaxMessageColumns);
  std::fprintf(stderr, "cookgraph: warning: %s\n", line.c_str());
}

bool UseColor() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(STDOUT_FILENO) == 1;
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

bool WriteStdout(std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
}

int WriteResult(const std::string& output, const std::string& text) {
  if (output != "-") {
    Status written = WriteFileAtomically(output, text);
    if (!written) {
      PrintError(written.error());
      return kExitInput;
    }
    return kExitOk;
  }
  if (!WriteStdout(text) || std::fflush(stdout)) {
    PrintError(Error{.file = "-", .message = "cannot write the results to standard output"});
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace cookgraph::cli
