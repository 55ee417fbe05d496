// Microbenchmarks of cookgraph's core on seeded synthetic networks: a layered
// DAG with fan-in, a few feedback edges, and per-frame cook times.

#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <sstream>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/gstreamer/gstreamer.h"
#include "adapters/native/snapshot_reader.h"
#include "advisor/pack.h"
#include "advisor/prompt.h"
#include "advisor/rules.h"
#include "advisor/tokens/token_counter.h"
#include "graph/condensation.h"
#include "graph/network_critical_path.h"
#include "graph/loops.h"
#include "graph/upstream.h"
#include "metrics/analysis.h"
#include "metrics/node_stats.h"
#include "writers/heatmap/heatmap_svg.h"
#include "writers/snapshot_writer.h"

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

// A Kineto-style trace of `steps` ProfilerSteps: per step, on the main
// thread, 20 operators nested three deep, each launching a kernel on one of
// two streams with an ac2g flow (start on the launch, finish on the kernel).
std::string SyntheticKineto(int steps) {
  std::string t = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  const char* const ops[] = {"aten::linear", "aten::addmm", "aten::gelu", "aten::layer_norm",
                             "aten::softmax"};
  int64_t ts = 1000, flow = 0;
  auto x = [&](const std::string& cat, const std::string& name, int tid, int64_t at, int64_t dur,
               const std::string& args) {
    t += "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":" +
         std::to_string(tid) + ",\"ts\":" + std::to_string(at) + ".125,\"dur\":" + std::to_string(dur) +
         ".5,\"args\":{" + args + "}},\n";
  };
  for (int step = 0; step < steps; ++step) {
    x("user_annotation", "ProfilerStep#" + std::to_string(step), 1, ts, 20 * 40, "");
    for (int op = 0; op < 20; ++op) {
      const int64_t at = ts + op * 40 + 1;
      x("cpu_op", ops[op % 5], 1, at, 30, "\"Input Dims\": [[8, 512], [512]]");
      x("cpu_op", "aten::empty", 1, at + 2, 20, "");
      x("cuda_runtime", "cudaLaunchKernel", 1, at + 4, 10, "\"correlation\": " + std::to_string(flow));
      t += "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":" + std::to_string(flow) +
           ",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(at + 4) + ",\"name\":\"ac2g\"},\n";
      const int stream = 7 + 6 * (op % 2);
      x("kernel", "sm80_gemm_" + std::to_string(op % 7), stream, at + 20, 15, "\"stream\": " + std::to_string(stream));
      t += "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"id\":" + std::to_string(flow) +
           ",\"pid\":1,\"tid\":" + std::to_string(stream) + ",\"ts\":" + std::to_string(at + 20) +
           ",\"name\":\"ac2g\"},\n";
      ++flow;
    }
    ts += 20 * 40 + 10;
  }
  t += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"python\"}}\n]}\n";
  return t;
}

void BM_ReadChromeTrace(benchmark::State& state) {
  const std::string text = SyntheticKineto(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto snapshot = ParseChromeTrace(text, {}, "bench.json");
    if (!snapshot) {
      state.SkipWithError(snapshot.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(snapshot->network.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadChromeTrace)->Arg(2000)->Unit(benchmark::kMillisecond);

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A real pipeline's dump and tracer log (tests/data/gstreamer/, recorded by
// gst-launch-1.0: a tee into two queued branches).
void BM_ReadGstreamer(benchmark::State& state) {
  const std::string dir = std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/gstreamer/";
  const std::string dot = Slurp(dir + "tee_bin.dot"), log = Slurp(dir + "tee_bin.log");
  for (auto _ : state) {
    auto snapshot = ParseGstreamer(dot, log, "tee_bin.dot", "tee_bin.log");
    if (!snapshot) {
      state.SkipWithError(snapshot.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(snapshot->network.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (dot.size() + log.size())));
}
BENCHMARK(BM_ReadGstreamer)->Unit(benchmark::kMillisecond);

// Each graph algorithm alone, on 100k nodes: 0 = the adjacency (building the
// graph), 1 = condensation and topological order, 2 = loops, 3 = critical
// path, 4 = upstream cost.
void BM_GraphAlgorithm(benchmark::State& state) {
  static const Snapshot s = Synthetic(100000, 1);
  std::vector<double> weight(s.network.size(), 1.0);
  const Adjacency adjacency(s.network);
  const Condensation condensation = Condense(s.network, adjacency);
  for (auto _ : state) {
    switch (state.range(0)) {
      case 0: {
        Adjacency built(s.network);
        benchmark::DoNotOptimize(built);
        break;
      }
      case 1: {
        Condensation c = Condense(s.network, adjacency);
        benchmark::DoNotOptimize(c.component.data());
        break;
      }
      case 2: {
        auto loops = FindLoops(s.network, adjacency, condensation);
        benchmark::DoNotOptimize(loops.data());
        break;
      }
      case 3: {
        Path path = CriticalPath(adjacency, condensation, weight);
        benchmark::DoNotOptimize(path);
        break;
      }
      default: {
        auto upstream = UpstreamCost(adjacency, condensation, weight);
        benchmark::DoNotOptimize(upstream.data());
        break;
      }
    }
  }
  static const char* const kNames[] = {"adjacency", "condense+order", "loops", "critical path",
                                       "upstream cost"};
  state.SetLabel(kNames[std::min<int64_t>(state.range(0), 4)]);
}
BENCHMARK(BM_GraphAlgorithm)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);

// The per-node statistics alone (avg, std, score, percentiles...), 10k nodes
// x 600 frames.
void BM_NodeStats(benchmark::State& state) {
  static const Snapshot s = Synthetic(10000, 600);
  for (auto _ : state) {
    double total = 0;
    for (NodeIndex n = 0; n < s.network.size(); ++n) total += ComputeNodeStats(s.samples, n, 16.7).score;
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * 10000 * 600);
}
BENCHMARK(BM_NodeStats)->Unit(benchmark::kMillisecond);

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
