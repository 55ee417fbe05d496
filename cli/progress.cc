#include "cli/progress.h"

#include <cstdio>

namespace cookgraph::cli {

void Progress::Step(const std::string& label) {
  ++done_;
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (done_ != total_ && shown_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done_ / (total_ ? total_ : 1));
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::string name = label.size() > 40 ? "..." + label.substr(label.size() - 37) : label;
  std::fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", bar.c_str(), done_, total_, name.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::Clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace cookgraph::cli
