// Microbenchmarks of cookgraph's core on seeded synthetic networks: a layered
// DAG with fan-in, a few feedback edges, and per-frame cook times.

#include <benchmark/benchmark.h>

#include <random>

#include "adapters/snapshot_reader.h"
#include "advisor/pack.h"
#include "advisor/prompt.h"
#include "advisor/rules.h"
#include "advisor/tokens.h"
#include "adapters/snapshot_writer.h"
#include "graph/condensation.h"
#include "graph/critical_path.h"
#include "graph/loops.h"
#include "graph/upstream.h"
#include "metrics/analysis.h"

namespace cookgraph {
namespace {

// `fan_in` = 0: one to three inputs per node (two on average); else exactly
// `fan_in` (distinct or not: parallel edges are allowed in the model).
Snapshot Synthetic(size_t nodes, size_t frames, uint32_t seed = 42, int fan_in_each = 0) {
  std::mt19937 rng(seed);
  Snapshot s;
  s.info.engine = "touchdesigner";
  s.info.fps = 60;
  for (size_t i = 0; i < nodes; ++i) {
    Node node{.id = "/project1/c" + std::to_string(i / 50) + "/op" + std::to_string(i),
              .type = "noiseTOP", .family = "TOP", .output = i % 97 == 0};
    (void)s.network.AddNode(std::move(node));
  }
  // Each node reads one to three earlier nodes nearby; every 500th closes a feedback loop.
  for (NodeIndex i = 1; i < nodes; ++i) {
    int fan_in = fan_in_each > 0 ? fan_in_each : 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < fan_in; ++k) {
      NodeIndex from = i - 1 - static_cast<NodeIndex>(rng() % std::min<size_t>(i, 40));
      s.network.AddEdge(from, i, EdgeKind::kData);
    }
    if (i % 500 == 0) s.network.AddEdge(i, i - 20, EdgeKind::kFeedback);
  }
  s.samples = Samples(nodes);
  std::vector<int64_t> index(frames);
  for (size_t f = 0; f < frames; ++f) index[f] = static_cast<int64_t>(f);
  s.samples.SetFrameIndex(std::move(index));
  std::lognormal_distribution<double> cook(-2.0, 0.5);
  for (NodeIndex i = 0; i < nodes; ++i) {
    std::vector<double> values(frames);
    for (double& v : values) v = rng() % 20 == 0 ? kMissing : cook(rng);
    s.samples.SetSeries(i, Metric::kCookMs, std::move(values));
  }
  return s;
}

void BM_ReadJson(benchmark::State& state) {
  std::string text = SnapshotToJson(Synthetic(state.range(0), state.range(1)));
  for (auto _ : state) {
    auto snapshot = ParseSnapshot(text, Spelling::kJson, "bench.json");
    benchmark::DoNotOptimize(snapshot.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadJson)->Args({1000, 600})->Args({10000, 60})->Unit(benchmark::kMillisecond);

void BM_ReadYaml(benchmark::State& state) {
  std::string text = SnapshotToYaml(Synthetic(state.range(0), state.range(1)));
  for (auto _ : state) {
    auto snapshot = ParseSnapshot(text, Spelling::kYaml, "bench.yaml");
    benchmark::DoNotOptimize(snapshot.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadYaml)->Args({1000, 600})->Unit(benchmark::kMillisecond);

void BM_GraphAlgorithms(benchmark::State& state) {
  Snapshot s = Synthetic(state.range(0), 1);
  std::vector<double> weight(s.network.size(), 1.0);
  for (auto _ : state) {
    Adjacency adjacency(s.network);
    Condensation condensation = Condense(s.network, adjacency);
    auto loops = FindLoops(s.network, adjacency, condensation);
    Path path = CriticalPath(adjacency, condensation, weight);
    auto upstream = UpstreamCost(adjacency, condensation, weight);
    benchmark::DoNotOptimize(upstream.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_GraphAlgorithms)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Issue 5's target: order, loops, critical path and upstream cost on a network
// of 1M nodes and 4M edges, under 2 s. Four inputs per node (within the 40
// nodes before it) and a feedback edge every 500 nodes; the adjacency is
// built inside the loop, as every command builds it.
void BM_GraphAnalysis1M(benchmark::State& state) {
  static const Snapshot s = Synthetic(1000000, 1, 42, 4);
  std::vector<double> weight(s.network.size(), 1.0);
  for (auto _ : state) {
    Adjacency adjacency(s.network);
    Condensation condensation = Condense(s.network, adjacency);
    auto loops = FindLoops(s.network, adjacency, condensation);
    Path path = CriticalPath(adjacency, condensation, weight);
    auto upstream = UpstreamCost(adjacency, condensation, weight);
    benchmark::DoNotOptimize(upstream.data());
    benchmark::DoNotOptimize(path);
  }
  state.counters["nodes"] = static_cast<double>(s.network.size());
  state.counters["edges"] = static_cast<double>(s.network.edges().size());
}
BENCHMARK(BM_GraphAnalysis1M)->Unit(benchmark::kMillisecond)->Iterations(3);

// Issue 5's target: the prompt for a 100k-node network, under 100 ms, with the
// default budget (20,000 tokens) and the estimator (the counter used when no
// tokenizer file is configured). The findings are evaluated once, outside
// the loop: the target is the prompt builder.
void BM_BuildPrompt100k(benchmark::State& state) {
  static const Snapshot s = Synthetic(100000, 60);
  static const Analysis analysis = Analyse(s);
  static const Result<KnowledgePack> pack = BuiltinPack(s.info.engine);
  if (!pack) {
    state.SkipWithError(pack.error().message.c_str());
    return;
  }
  static const std::vector<Finding> findings = Evaluate(*pack, s, analysis);
  const std::unique_ptr<TokenCounter> counter = MakeEstimator();
  const PromptInput input{.file = "bench.json",
                          .snapshot = s,
                          .analysis = analysis,
                          .pack = *pack,
                          .findings = findings,
                          .question = "Why does my network drop frames?"};
  size_t tokens = 0, listed = 0;
  for (auto _ : state) {
    Result<Prompt> prompt = BuildPrompt(input, *counter, kDefaultBudgetTokens);
    if (!prompt) {
      state.SkipWithError(prompt.error().message.c_str());
      return;
    }
    tokens = prompt->tokens;
    listed = prompt->nodes_included;
  }
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["nodes_listed"] = static_cast<double>(listed);
  state.counters["findings"] = static_cast<double>(findings.size());
}
BENCHMARK(BM_BuildPrompt100k)->Unit(benchmark::kMillisecond);

void BM_Analyse(benchmark::State& state) {
  Snapshot s = Synthetic(state.range(0), state.range(1));
  for (auto _ : state) {
    Analysis analysis = Analyse(s);
    benchmark::DoNotOptimize(analysis.stats.data());
  }
}
BENCHMARK(BM_Analyse)->Args({10000, 600})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cookgraph

BENCHMARK_MAIN();
