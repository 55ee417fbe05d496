#include "pipeline/pipeline.h"

namespace cookgraph::pipeline {

Status ReadAndAnalyse(const Input& input, const ReadOptions& read, const AnalysisOptions& options,
                      Judged& out, const Prepare& prepare) {
  Result<Snapshot> snapshot = ReadInput(input.paths, read);
  if (!snapshot) return snapshot.error();
  out.snapshot = std::move(*snapshot);
  if (prepare) {
    if (Status prepared = prepare(out.snapshot); !prepared) return prepared;
  }
  out.analysis = Analyse(out.snapshot, options);
  return {};
}

Outcome JudgeSnapshot(Judged& out, const AnalysisOptions& options, const std::string& pack_path) {
  out.analysis = Analyse(out.snapshot, options);
  Status judged = ApplyPack(out, pack_path);
  if (!judged) return Failure{.error = judged.error(), .internal = pack_path.empty()};
  return {};
}

Outcome ReadAndJudge(const Input& input, const ReadOptions& read, const AnalysisOptions& options,
                     const std::string& pack_path, Judged& out) {
  Result<Snapshot> snapshot = ReadInput(input.paths, read);
  if (!snapshot) return Failure{.error = snapshot.error()};
  out.snapshot = std::move(*snapshot);
  return JudgeSnapshot(out, options, pack_path);
}

}  // namespace cookgraph::pipeline
