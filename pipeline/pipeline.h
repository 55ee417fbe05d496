#ifndef COOKGRAPH_PIPELINE_PIPELINE_H_
#define COOKGRAPH_PIPELINE_PIPELINE_H_

// The one way from an input to what a front end shows
// (docs/architecture.md#the-pipeline): read, analyse, judge. The CLI, the
// Python module, the explorer's server and the page in the browser call these
// and nothing else for it, so that they give the same results by
// construction.

#include <functional>
#include <optional>
#include <string>

#include "adapters/input_files.h"
#include "adapters/input_reader.h"
#include "advisor/judge.h"
#include "base/error.h"
#include "metrics/analysis.h"

namespace cookgraph::pipeline {

/// Why a step failed, and whose fault it is: the input's (a file cookgraph
/// cannot read, a user's knowledge pack) or cookgraph's (`internal`: out of
/// memory, a bug, a built-in pack that does not load). The CLI exits 2 for the
/// first and 1 for the second (docs/commands.md#errors-and-exit-codes).
struct Failure {
  Error error;
  bool internal = false;
};

/// Success, or a Failure.
class Outcome {
 public:
  Outcome() = default;
  Outcome(Failure failure) : failure_(std::move(failure)) {}  // NOLINT: implicit by design
  explicit operator bool() const { return !failure_; }
  const Failure& failure() const { return *failure_; }

 private:
  std::optional<Failure> failure_;
};

/// What is done to a snapshot between reading and analysing it (`diff
/// --steps` keeps a window of steps); its Error stops the pipeline.
using Prepare = std::function<Status(Snapshot&)>;

/// Reads `input` (its paths as ExpandInputs gives them) into `out.snapshot`,
/// prepares it (when `prepare` is given) and analyses it into `out.analysis`;
/// `out`'s pack and findings are left as they are. The reader's Error names
/// the input.
Status ReadAndAnalyse(const Input& input, const ReadOptions& read, const AnalysisOptions& options,
                      Judged& out, const Prepare& prepare = nullptr);

/// Analyses `out.snapshot` (read, or made by live mode) with `options` and
/// judges it by `pack_path`'s knowledge pack (the engine's built-in one when
/// "": a failure to load that one is internal).
Outcome JudgeSnapshot(Judged& out, const AnalysisOptions& options, const std::string& pack_path);

/// ReadAndAnalyse, then the knowledge pack as JudgeSnapshot: what `ask`, `report`
/// and the explorer start from.
Outcome ReadAndJudge(const Input& input, const ReadOptions& read, const AnalysisOptions& options,
                     const std::string& pack_path, Judged& out);

}  // namespace cookgraph::pipeline

#endif  // COOKGRAPH_PIPELINE_PIPELINE_H_
