#ifndef COOKGRAPH_TESTS_SHELL_H_
#define COOKGRAPH_TESTS_SHELL_H_

// What tests that run cookgraph through the shell share: a file's bytes and a
// word quoted for sh.

#include <fstream>
#include <sstream>
#include <string>

namespace cookgraph::testing {

/// The whole file, "" when it cannot be read.
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Writes `text` to `path`, replacing what was there.
inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// `s` as one sh word: in single quotes, a ' inside as '\''.
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_SHELL_H_
