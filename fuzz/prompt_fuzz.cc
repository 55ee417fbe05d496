// Fuzz target: the advisor on arbitrary snapshots (native JSON): the built-in
// pack's rules, the token-budgeted prompt and both report renderers. The
// prompt must fit its budget, and the HTML report must carry no markup that
// came from the input.
#include <algorithm>
#include <map>

#include "adapters/native/snapshot_reader.h"
#include "advisor/pack.h"
#include "advisor/prompt.h"
#include "advisor/report/report_renderers.h"
#include "advisor/rules.h"
#include "advisor/tokens/token_counter.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"

namespace {

using namespace cookgraph;

const KnowledgePack& PackFor(const std::string& engine) {
  static std::map<std::string, KnowledgePack> packs;
  const std::string name(PackNameForEngine(engine));
  auto it = packs.find(name);
  if (it == packs.end()) {
    Result<KnowledgePack> pack = BuiltinPack(engine);
    FUZZ_CHECK(pack.ok());
    it = packs.emplace(name, std::move(*pack)).first;
  }
  return it->second;
}

bool HasMarkup(std::string html) {
  std::transform(html.begin(), html.end(), html.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view tag : {"<script", "<iframe", "<img", "<object", "<embed", "<link"}) {
    if (html.find(tag) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<Snapshot> snapshot = ParseSnapshot(fuzz::Text(data, size), Spelling::kJson, "fuzz.json");
  if (!snapshot) return 0;  // the native_json target checks the reader's errors
  const Analysis analysis = Analyse(*snapshot);
  const KnowledgePack& pack = PackFor(snapshot->info.engine);
  const std::vector<Finding> findings = Evaluate(pack, *snapshot, analysis);

  static const std::unique_ptr<TokenCounter> counter = MakeEstimator();
  const size_t budget = size % 2 == 0 ? kDefaultBudgetTokens : 1500;
  Result<Prompt> prompt = BuildPrompt({.file = "fuzz.json",
                                       .snapshot = *snapshot,
                                       .analysis = analysis,
                                       .pack = pack,
                                       .findings = findings,
                                       .question = "Why is it slow?"},
                                      *counter, budget);
  if (prompt) {
    FUZZ_CHECK(prompt->tokens <= budget);
    FUZZ_CHECK(prompt->messages.size() == 2);
  } else {
    fuzz::CheckError(prompt.error());
  }

  const ReportInput report{.file = "fuzz.json",
                           .snapshot = *snapshot,
                           .analysis = analysis,
                           .findings = findings,
                           .advice_note = "fuzzing"};
  FUZZ_CHECK(!HasMarkup(RenderReportHtml(report)));
  (void)RenderReportMarkdown(report);
  return 0;
}
