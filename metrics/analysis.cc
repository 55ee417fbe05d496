#include "metrics/analysis.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "graph/condensation.h"
#include "graph/parallel.h"
#include "graph/reachability.h"
#include "graph/upstream.h"
#include "metrics/whatif.h"

namespace cookgraph {
namespace {

constexpr std::array<std::string_view, 8> kSortKeyNames = {
    "score", "avg", "p95", "max", "per-frame", "gpu", "upstream", "gain"};

// A ranking value that sorts; NaN (which breaks strict weak ordering) goes last.
double Orderable(double v) { return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v; }

double KeyValue(const Analysis& analysis, NodeIndex node, SortKey key) {
  const NodeStats& s = analysis.stats[node];
  switch (key) {
    case SortKey::kScore:
      return s.score;
    case SortKey::kAvg:
      return s.avg_ms;
    case SortKey::kP95:
      return s.p95_ms;
    case SortKey::kMax:
      return s.max_ms;
    case SortKey::kPerFrame:
      return s.per_frame_ms;
    case SortKey::kGpu:
      return s.gpu_avg_ms.value_or(0.0);
    case SortKey::kUpstream:
      return node < analysis.upstream_ms.size() ? analysis.upstream_ms[node] : 0.0;
    case SortKey::kGain:
      return node < analysis.gain_ms.size() ? analysis.gain_ms[node] : 0.0;
  }
  return 0.0;
}

// The loops of the network, costliest first, and which nodes are in one.
void AddLoops(const Network& network, const Adjacency& adjacency,
              const Condensation& condensation, Analysis& analysis) {
  const size_t n = network.size();
  analysis.in_loop.assign(n, false);
  for (Loop& loop : FindLoops(network, adjacency, condensation)) {
    LoopReport report{.loop = std::move(loop)};
    for (NodeIndex node : report.loop.nodes) {
      if (node >= n) continue;
      analysis.in_loop[node] = true;
      report.per_frame_ms += analysis.stats[node].per_frame_ms;
    }
    analysis.loops.push_back(std::move(report));
  }
  auto first_node = [](const LoopReport& r) {
    return r.loop.nodes.empty() ? NodeIndex{0} : r.loop.nodes.front();
  };
  std::stable_sort(analysis.loops.begin(), analysis.loops.end(),
                   [&](const LoopReport& a, const LoopReport& b) {
                     if (a.per_frame_ms != b.per_frame_ms) return a.per_frame_ms > b.per_frame_ms;
                     if (a.loop.kind != b.loop.kind) return a.loop.kind < b.loop.kind;
                     return first_node(a) < first_node(b);
                   });
}

// A trace's summary, and its critical path in place of the network's.
void AddTrace(const Snapshot& snapshot, const AnalysisOptions& options, Analysis& analysis) {
  const size_t n = snapshot.network.size();
  const Samples& samples = snapshot.samples;
  analysis.trace = SummariseTrace(snapshot.timelines, samples, analysis.frames.frame_ms,
                                  options.path_window);
  if (snapshot.info.engine == "onnxruntime") {
    analysis.trace->outside = TimeOutsideNodes(snapshot.timelines);
    analysis.trace->intra_op = IntraOpThreads(snapshot.timelines);
  }
  for (const std::string& w : analysis.trace->warnings) analysis.warnings.push_back(w);
  // A trace's critical path is the events' (docs/architecture.md#event-critical-path),
  // never the chain of merged nodes: its nodes, and its length in ms.
  analysis.critical_path = Path{};
  analysis.critical_route = Path{};
  analysis.on_critical_path.assign(n, false);
  if (analysis.trace->path) {
    const StepPath& p = *analysis.trace->path;
    analysis.critical_path.nodes.clear();
    for (NodeIndex node : p.nodes) {
      if (node < n) analysis.critical_path.nodes.push_back(node);
    }
    analysis.critical_path.weight = p.length_ms;
    analysis.critical_route = analysis.critical_path;
    analysis.on_critical_path.assign(n, false);
    for (NodeIndex node : analysis.critical_path.nodes) analysis.on_critical_path[node] = true;
  }
}

}  // namespace

std::string_view SortKeyName(SortKey key) { return kSortKeyNames[static_cast<size_t>(key)]; }

std::optional<SortKey> ParseSortKey(std::string_view name) {
  for (size_t i = 0; i < kSortKeyNames.size(); ++i) {
    if (kSortKeyNames[i] == name) return static_cast<SortKey>(i);
  }
  return std::nullopt;
}

Analysis Analyse(const Snapshot& snapshot, const AnalysisOptions& options) {
  const Network& network = snapshot.network;
  const Samples& samples = snapshot.samples;
  const size_t n = network.size();

  Analysis analysis;
  analysis.warnings = snapshot.warnings;
  const std::optional<double> budget = options.budget_ms ? options.budget_ms : snapshot.info.budget();
  analysis.budget_ms = budget.value_or(0);
  analysis.has_budget = budget.has_value();
  // The reader already says why a snapshot has no frames; say it once.
  if (samples.frame_count() == 0 && snapshot.warnings.empty()) {
    analysis.warnings.push_back("no frames");
  }
  if (samples.frame_count() > 0 && samples.node_count() != n) {
    // Nodes without samples count as never cooked; samples of nodes the network
    // does not have still count towards summed frame times.
    analysis.warnings.push_back("samples cover " + std::to_string(samples.node_count()) +
                                " nodes but the network has " + std::to_string(n));
  }

  analysis.frames = SummariseFrames(samples, budget);
  analysis.profiler = SummariseProfiler(samples, analysis.frames);
  // Each node's statistics depend on its own series only: a large snapshot's
  // nodes are split in two halves, one per core.
  analysis.stats.resize(n);
  constexpr size_t kParallelSamples = size_t{1} << 20;
  RunHalvesIf(size_t{n} * samples.frame_count() >= kParallelSamples, n,
              [&](size_t from, size_t to, size_t) {
                for (auto node = static_cast<NodeIndex>(from); node < to; ++node) {
                  analysis.stats[node] = ComputeNodeStats(samples, node, analysis.frames.mean_ms,
                                                          analysis.frames.counted);
                }
              });

  // Waiting nodes (a queue, a mixer waiting for its other input) are not
  // work: they weigh nothing on the critical path and in upstream costs.
  analysis.waiting.assign(n, false);
  for (NodeIndex node = 0; node < n; ++node) {
    analysis.waiting[node] = IsWaitingFamily(network.node(node).family);
  }
  // A waiting node's time is not part of the frame time: no share of it.
  for (NodeIndex node = 0; node < n; ++node) {
    if (analysis.waiting[node]) analysis.stats[node].share = 0;
  }
  // The graph algorithms take one weight >= 0 per node.
  std::vector<double> weight(n);
  for (NodeIndex node = 0; node < n; ++node) {
    const double w = analysis.stats[node].per_frame_ms;
    weight[node] = w > 0 && !analysis.waiting[node] ? w : 0.0;
  }

  const Adjacency adjacency(network);  // without feedback edges
  const Condensation condensation = Condense(network, adjacency);
  analysis.order = condensation.order;
  analysis.critical_path = CriticalPath(adjacency, condensation, weight);
  analysis.critical_route = analysis.critical_path;
  // A waiting node is a hand-over between streaming threads, not a step of
  // work: the path passes through it without naming it.
  std::erase_if(analysis.critical_path.nodes,
                [&](NodeIndex node) { return node < n && analysis.waiting[node]; });
  analysis.upstream_ms = UpstreamCost(adjacency, condensation, weight);

  analysis.on_critical_path.assign(n, false);
  for (NodeIndex node : analysis.critical_path.nodes) {
    if (node < n) analysis.on_critical_path[node] = true;
  }

  AddLoops(network, adjacency, condensation, analysis);

  analysis.dead.assign(n, false);
  if (network.has_outputs()) {
    // Live, not merely "reaches an output": a nested op or kernel serves the op
    // that called or launched it (graph/reachability.h).
    const std::vector<bool> live = LiveNodes(network, adjacency);
    for (NodeIndex node = 0; node < n; ++node) {
      analysis.dead[node] = analysis.stats[node].cooked_frames > 0 && !live[node];
    }
  } else {
    analysis.warnings.push_back("no node is marked as an output: dead cooks are not computed");
  }

  // Spikes are over-budget frames: not the waiting nodes', nor those of a
  // GStreamer element whose cooks are another stream's buffers, not frames.
  std::vector<bool> no_spikes = analysis.waiting;
  if (snapshot.streaming) {
    const std::vector<bool> off = OffFrameNodes(*snapshot.streaming, n);
    for (NodeIndex node = 0; node < n; ++node) no_spikes[node] = no_spikes[node] || off[node];
  }
  analysis.spikes = AttributeSpikes(samples, analysis.frames, analysis.stats, options.spike_limit,
                                    no_spikes);
  if (!snapshot.timelines.empty()) AddTrace(snapshot, options, analysis);
  if (options.gains) {
    const WhatIf whatif = WhatIf::Build(snapshot, analysis);
    // Its warnings (a model that approximates) are said where predictions
    // are shown (`whatif`, the explorer's what-if), not by every command.
    analysis.gain_ms = HalvingGains(whatif, analysis, n);
  }
  return analysis;
}

std::vector<NodeIndex> Rank(const Analysis& analysis, SortKey key) {
  const size_t n = analysis.stats.size();
  std::vector<NodeIndex> ranked;
  ranked.reserve(n);
  for (NodeIndex node = 0; node < n; ++node) {
    if (analysis.stats[node].cooked_frames > 0) ranked.push_back(node);
  }
  std::vector<double> value(n, 0.0);
  for (NodeIndex node : ranked) value[node] = Orderable(KeyValue(analysis, node, key));
  auto waits = [&analysis](NodeIndex node) {
    return node < analysis.waiting.size() && analysis.waiting[node];
  };
  std::sort(ranked.begin(), ranked.end(), [&](NodeIndex a, NodeIndex b) {
    if (waits(a) != waits(b)) return waits(b);  // work first, then waiting
    if (value[a] != value[b]) return value[a] > value[b];
    const double sa = Orderable(analysis.stats[a].score);
    const double sb = Orderable(analysis.stats[b].score);
    if (sa != sb) return sa > sb;
    return a < b;
  });

  // Then the nodes that never cooked, in topological order; any the order
  // does not name (an Analysis not made by Analyse) follow by index.
  std::vector<bool> placed(n, false);
  for (NodeIndex node : ranked) placed[node] = true;
  for (NodeIndex node : analysis.order) {
    if (node < n && !placed[node]) {
      placed[node] = true;
      ranked.push_back(node);
    }
  }
  for (NodeIndex node = 0; node < n; ++node) {
    if (!placed[node]) ranked.push_back(node);
  }
  return ranked;
}

size_t CookedCount(const Analysis& analysis) {
  return static_cast<size_t>(std::count_if(analysis.stats.begin(), analysis.stats.end(),
                                           [](const NodeStats& s) { return s.cooked_frames > 0; }));
}

}  // namespace cookgraph
