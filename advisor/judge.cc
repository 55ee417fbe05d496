#include "advisor/judge.h"

#include "advisor/rules.h"

namespace cookgraph {

Status Judge(Judged& judged, std::optional<double> budget_ms, const std::string& pack_path) {
  judged.analysis = Analyse(judged.snapshot, AnalysisOptions{.budget_ms = budget_ms});
  return ApplyPack(judged, pack_path);
}

Status ApplyPack(Judged& judged, const std::string& pack_path) {
  Result<KnowledgePack> pack =
      pack_path.empty() ? BuiltinPack(judged.snapshot.info.engine) : LoadPack(pack_path);
  if (!pack) return pack.error();
  judged.pack = std::move(*pack);
  judged.findings = Evaluate(judged.pack, judged.snapshot, judged.analysis);
  return {};
}

}  // namespace cookgraph
