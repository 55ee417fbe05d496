#include "base/error.h"

namespace cookgraph {

std::string Error::Format() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) {
      out += ':' + std::to_string(line);
      if (column > 0) out += ':' + std::to_string(column);
    }
    out += ": ";
  }
  if (!where.empty()) out += where + ": ";
  out += message;
  // One line, whatever the message holds, and no control bytes from the input
  // (an escape sequence in a node's name) reach the terminal.
  std::string printable;
  printable.reserve(out.size());
  for (char c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r') {
      printable += ' ';
    } else if ((u < 0x20 && c != '\t') || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      printable += "\\x";
      printable += kHex[u >> 4];
      printable += kHex[u & 15];
    } else {
      printable += c;
    }
  }
  return printable;
}

}  // namespace cookgraph
