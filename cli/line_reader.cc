#include "cli/line_reader.h"

// libedit's readline API; kept out of the unity build (cli/CMakeLists.txt):
// its header defines macros the other commands' files do not expect.
#include <editline/readline.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "base/text.h"

namespace cookgraph::cli {

LineReader::LineReader(bool terminal) : terminal_(terminal) {
  if (terminal_) {
    rl_readline_name = "cookgraph";
    using_history();
  }
}

LineReader::~LineReader() {
  if (terminal_) clear_history();
}

std::optional<std::string> LineReader::Read(const std::string& prompt) {
  for (;;) {
    std::string line;
    if (terminal_) {
      char* raw = readline(prompt.c_str());
      if (raw == nullptr) {
        std::fputs("\n", stdout);
        return std::nullopt;
      }
      line = raw;
      std::free(raw);
    } else if (!std::getline(std::cin, line)) {
      return std::nullopt;
    }
    line = std::string(TrimSpace(line));
    if (line.empty()) continue;
    if (terminal_) add_history(line.c_str());
    return line;
  }
}

}  // namespace cookgraph::cli
