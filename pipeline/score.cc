#include "pipeline/score.h"

#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "advisor/findings.h"
#include "advisor/gains.h"
#include "advisor/rules.h"
#include "metrics/diff.h"
#include "metrics/whatif.h"

namespace cookgraph::pipeline {

Result<Baseline> ReadBaseline(const std::string& file, const ReadOptions& read,
                              const AnalysisOptions& options) {
  Judged judged;
  if (Status read_ok = ReadAndAnalyse(Input{{file}}, read, options, judged); !read_ok) {
    return read_ok.error();
  }
  return Baseline{.file = file,
                  .snapshot = std::move(judged.snapshot),
                  .analysis = std::move(judged.analysis)};
}

const Result<KnowledgePack>& PackCache::For(const std::string& engine) {
  const std::string name(PackNameForEngine(engine));
  std::lock_guard lock(mutex_);
  auto it = packs_.find(name);
  if (it == packs_.end()) it = packs_.emplace(name, BuiltinPack(engine)).first;
  return it->second;
}

std::string FirstFixLine(const Snapshot& snapshot, const Analysis& analysis) {
  const WhatIf whatif = WhatIf::Build(snapshot, analysis);
  const TopGains top = PredictTopGains(whatif, analysis, 1);
  if (top.rows.empty()) return "";
  const PredictedGain& g = top.rows.front();
  return snapshot.network.node(g.nodes.front()).id + ": " + FixSentence(g, snapshot.info.frame_word());
}

namespace {

void CountFindings(const ScoreRequest& request, const Judged& judged, ScoredInput& scored) {
  const Result<KnowledgePack>& pack = request.packs->For(judged.snapshot.info.engine);
  if (!pack) {
    scored.warnings.push_back("findings not counted: " + pack.error().Format());
    return;
  }
  for (const Finding& f : Evaluate(*pack, judged.snapshot, judged.analysis)) {
    switch (f.severity) {
      case Severity::kCritical: ++scored.summary.critical; break;
      case Severity::kWarning: ++scored.summary.warnings; break;
      case Severity::kInfo: ++scored.summary.info; break;
    }
  }
}

// Holds what ScoreRequest::leave_to_exit leaves until the process ends:
// reachable from a static, so a leak checker does not count it.
void LeaveToExit(std::unique_ptr<Judged> judged) {
  static std::mutex mutex;
  static auto& left = *new std::vector<std::unique_ptr<Judged>>();
  std::lock_guard<std::mutex> lock(mutex);
  left.push_back(std::move(judged));
}

void Score(const Input& input, const ScoreRequest& request, ScoredInput& scored) {
  auto held = std::make_unique<Judged>();
  Judged& judged = *held;
  if (Status read = ReadAndAnalyse(input, request.read, request.analysis, judged); !read) {
    scored.outcome = Failure{.error = read.error()};
    return;
  }
  const Snapshot& snapshot = judged.snapshot;
  const Analysis& analysis = judged.analysis;
  const std::string name = input.name();
  scored.warnings = analysis.warnings;
  if (request.summary) {
    scored.summary = Summarise(name, snapshot, analysis);
    CountFindings(request, judged, scored);
  }
  std::optional<SnapshotDiff> diff;
  if (request.baseline) {
    diff = CompareSnapshots(request.baseline->snapshot, request.baseline->analysis, snapshot,
                            analysis);
  }
  const std::string baseline_file = request.baseline ? request.baseline->file : "";
  if (request.rows) {
    const bool compared = !request.rows->baseline_file.empty() && diff;
    scored.rows = ScoreRows(
        {name, snapshot, analysis, compared ? &*diff : nullptr, compared ? baseline_file : ""},
        *request.rows);
  }
  if (request.format) {
    const bool human = *request.format == ScoreFormat::kTable ||
                       *request.format == ScoreFormat::kMarkdown;
    const std::string first_fix = human ? FirstFixLine(snapshot, analysis) : std::string();
    scored.text = RenderScoreSnapshotPieces(
        *request.format,
        {name, snapshot, analysis, diff ? &*diff : nullptr, baseline_file, first_fix},
        request.options);
  }
  if (request.leave_to_exit) LeaveToExit(std::move(held));
}

}  // namespace

ScoredInput ScoreInput(const Input& input, const ScoreRequest& request) {
  ScoredInput scored;
  try {
    Score(input, request, scored);
  } catch (const std::bad_alloc&) {
    scored = ScoredInput{};
    scored.outcome = Failure{.error = Error{.file = input.name(), .message = "out of memory"},
                             .internal = true};
  } catch (const std::exception& e) {
    scored = ScoredInput{};
    scored.outcome = Failure{
        .error = Error{.file = input.name(), .message = std::string("internal error: ") + e.what()},
        .internal = true};
  }
  return scored;
}

}  // namespace cookgraph::pipeline
