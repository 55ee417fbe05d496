#include "advisor/judge.h"

#include "advisor/gains.h"
#include "advisor/rules.h"
#include "metrics/whatif.h"

namespace cookgraph {

Status ApplyPack(Judged& judged, const std::string& pack_path) {
  Result<KnowledgePack> pack =
      pack_path.empty() ? BuiltinPack(judged.snapshot.info.engine) : LoadPack(pack_path);
  if (!pack) return pack.error();
  judged.pack = std::move(*pack);
  if (judged.analysis.gain_ms.empty()) {
    judged.findings = Evaluate(judged.pack, judged.snapshot, judged.analysis);
    judged.gains = {};
    return {};
  }
  const WhatIf whatif = WhatIf::Build(judged.snapshot, judged.analysis);
  judged.findings =
      Evaluate(judged.pack, judged.snapshot, judged.analysis, EvaluateOptions{.whatif = &whatif});
  judged.gains = PredictTopGains(whatif, judged.analysis, kTopGainsCount);
  return {};
}

}  // namespace cookgraph
