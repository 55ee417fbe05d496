#include "mcp/stdio.h"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

namespace cookgraph::mcp {
namespace {

// Writes all of `text`; false when the other end is gone.
bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool ServeLines(Server& server, int in, int out, size_t max_line) {
  std::string line;        // the message read so far
  size_t skipped = 0;      // > 0: the line is over max_line; bytes of it passed by
  char buffer[64 * 1024];
  auto answer = [&](std::string_view message) {
    std::string text;
    for (const std::string& reply : server.Handle(message)) text += reply + "\n";
    return WriteAll(out, text);
  };
  for (;;) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    std::string_view chunk(buffer, static_cast<size_t>(n));
    while (!chunk.empty()) {
      const size_t newline = chunk.find('\n');
      const std::string_view part = chunk.substr(0, newline);
      if (skipped > 0) {
        skipped += part.size();
      } else if (line.size() + part.size() > max_line) {
        skipped = line.size() + part.size();
        line.clear();
        line.shrink_to_fit();
      } else {
        line.append(part);
      }
      if (newline == std::string_view::npos) break;
      chunk.remove_prefix(newline + 1);
      const bool ok = skipped > 0 ? WriteAll(out, Server::LineTooLong(skipped, max_line) + "\n") : answer(line);
      if (!ok) return true;  // the client left
      skipped = 0;
      line.clear();
    }
  }
  if (skipped > 0) {
    WriteAll(out, Server::LineTooLong(skipped, max_line) + "\n");
  } else if (!line.empty()) {
    answer(line);  // the last message, without its newline
  }
  return true;
}

}  // namespace cookgraph::mcp
