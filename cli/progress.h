#ifndef COOKGRAPH_CLI_PROGRESS_H_
#define COOKGRAPH_CLI_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <string>

namespace cookgraph::cli {

/// A one-line progress bar on standard error, redrawn at most ten times a
/// second. Does nothing when disabled (not a terminal, or a single input).
class Progress {
 public:
  Progress(size_t total, bool enabled) : total_(total), enabled_(enabled) {}
  ~Progress() { Clear(); }
  /// One more item done; `label` names it.
  void Step(const std::string& label);
  /// Erases the bar (before other output on standard error, and at the end).
  void Clear();

 private:
  size_t total_;
  size_t done_ = 0;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_PROGRESS_H_
