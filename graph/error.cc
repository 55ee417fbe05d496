#include "graph/error.h"

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
  // One line, whatever the message holds.
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace cookgraph
