// Microbenchmarks of cookgraph's core on seeded synthetic networks: a layered
// DAG with fan-in, a few feedback edges, and per-frame cook times.

#include <benchmark/benchmark.h>

#include <random>

#include "adapters/heatmap_svg.h"
#include "adapters/snapshot_reader.h"
#include "adapters/snapshot_writer.h"
#include "graph/condensation.h"
#include "graph/critical_path.h"
#include "graph/loops.h"
#include "graph/upstream.h"
#include "metrics/analysis.h"

namespace cookgraph {
namespace {

Snapshot Synthetic(size_t nodes, size_t frames, uint32_t seed = 42) {
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
    int fan_in = 1 + static_cast<int>(rng() % 3);
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

void BM_Analyse(benchmark::State& state) {
  Snapshot s = Synthetic(state.range(0), state.range(1));
  for (auto _ : state) {
    Analysis analysis = Analyse(s);
    benchmark::DoNotOptimize(analysis.stats.data());
  }
}
BENCHMARK(BM_Analyse)->Args({10000, 600})->Unit(benchmark::kMillisecond);

// The network heatmap (Graphviz dot layout and SVG, in memory) of an analysed
// network: 400 nodes are drawn whole (the cap), 10,000 and 100,000 are
// reduced to 400. Issue 7 asks for under 5 s at 10,000 nodes.
void BM_Heatmap(benchmark::State& state) {
  Snapshot s = Synthetic(state.range(0), 60);
  Analysis analysis = Analyse(s);
  size_t drawn = 0;
  for (auto _ : state) {
    Result<Heatmap> heatmap = DrawHeatmap("bench.json", s, analysis);
    if (!heatmap) {
      state.SkipWithError(heatmap.error().Format().c_str());
      break;
    }
    drawn = heatmap->selection.nodes.size();
    benchmark::DoNotOptimize(heatmap->svg.data());
  }
  state.counters["drawn"] = static_cast<double>(drawn);
}
BENCHMARK(BM_Heatmap)->Arg(400)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cookgraph

BENCHMARK_MAIN();
