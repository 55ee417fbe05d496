// The Chrome trace adapter per producer: PyTorch (Kineto, both schemas),
// TensorFlow 1.x timelines and ONNX Runtime profiles, on hand-written traces
// and on the real traces in tests/data/fixtures/traces (numbers read off the raw
// files by hand; tests/tools/chrome_trace_check.py checks every sample of them
// independently).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "adapters/chrome/chrome_trace.h"
#include "metrics/analysis.h"
#include "tests/adapters/chrome/chrome_trace_test.h"

namespace cookgraph {
namespace {

using namespace testing;  // the helpers of tests/adapters/chrome/chrome_trace_test.h

std::string Param(const Snapshot& s, std::string_view id, std::string_view key) {
  auto node = s.network.Find(id);
  if (!node) return "(no node)";
  for (const auto& [k, v] : s.network.node(*node).params) {
    if (k == key) return v;
  }
  return "(no param)";
}

bool NothingDead(const Snapshot& s) {
  const Analysis analysis = Analyse(s);
  return std::none_of(analysis.dead.begin(), analysis.dead.end(), [](bool d) { return d; });
}

// Kineto's current schema, with relative timestamps: ts + baseTimeNanoseconds
// is wall time. Step 7 is [1000.5, 1100.5); aten::add [1010.5, 1040.5) holds
// the launch [1020.5, 1030.5) of add_kernel, which runs after the step ended.
constexpr const char* kKineto = R"json({
  "schemaVersion": 1, "deviceProperties": [], "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 10, "ts": 1000.5, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 10, "tid": 10, "ts": 1010.5, "dur": 30,
   "args": {"External id": 5, "Input Dims": [[2, 3], []], "Input type": ["float", "Scalar"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1020.5, "dur": 10},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 77, "pid": 10, "tid": 10, "ts": 1020.5},
  {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 1105.5, "dur": 20,
   "args": {"grid": [1, 2, 3], "block": [128, 1, 1], "stream": 7}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 77, "pid": 0, "tid": 7, "ts": 1105.5, "bp": "e"},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 1100.5, "dur": 30},
  {"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 10, "tid": 10, "ts": 1050.5, "dur": 20},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "forward", "pid": 0, "tid": 7, "ts": 1060.5, "dur": 5},
  {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1000.5, "dur": 200},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 10, "tid": 10, "ts": 1200.5, "dur": 3}
  ],
  "traceName": "kineto.json"})json";

TEST(ChromeTraceKineto, OpsKernelsStepsAndRelativeTimestamps) {
  auto r = ParseTrace(kKineto);
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "pytorch");
  // 1700000000 s + 1010.5 µs (the first op's start).
  EXPECT_EQ(s.info.captured, "2023-11-14T22:13:20Z");
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{7}));
  EXPECT_DOUBLE_EQ(Value(s, "aten::add", 7), 0.020);  // 30 - 10; the add at 1200.5 is outside
  EXPECT_EQ(Value(s, "aten::add", 7, Metric::kCooks), 1);
  EXPECT_NE(WarningWith(s, "1 slice(s) lie outside every step"), "");
  EXPECT_DOUBLE_EQ(Value(s, "cudaLaunchKernel", 7), 0.010);
  // The kernel ran after the step but was launched inside it.
  EXPECT_DOUBLE_EQ(Value(s, "add_kernel", 7), 0.020);
  EXPECT_DOUBLE_EQ(Value(s, "add_kernel", 7, Metric::kGpuMs), 0.020);
  EXPECT_TRUE(HasEdge(s, "aten::add", "cudaLaunchKernel", EdgeKind::kCall));
  EXPECT_TRUE(HasEdge(s, "cudaLaunchKernel", "add_kernel", EdgeKind::kLaunch));
  // Families from the categories; a GPU range of a CPU range's name is another node.
  EXPECT_EQ(s.network.node(*s.network.Find("aten::add")).family, "cpu_op");
  EXPECT_EQ(s.network.node(*s.network.Find("cudaLaunchKernel")).family, "cuda_runtime");
  EXPECT_EQ(s.network.node(*s.network.Find("add_kernel")).family, "kernel");
  EXPECT_DOUBLE_EQ(Value(s, "forward", 7), 0.020);
  // Annotations on a GPU stream are not work: not nodes (docs/formats.md#pytorch-kineto).
  EXPECT_FALSE(s.network.Find("forward [gpu_user_annotation]"));
  // The step's GPU copy and the profiler's own span are neither frames nor nodes.
  EXPECT_EQ(s.network.size(), 4u);
  EXPECT_FALSE(s.network.Find("PyTorch Profiler (0)"));
  // Key parameters from the first event's args.
  EXPECT_EQ(Param(s, "aten::add", "input_dims"), "[[2, 3], []]");
  EXPECT_EQ(Param(s, "aten::add", "input_types"), "[\"float\", \"Scalar\"]");
  EXPECT_EQ(Param(s, "add_kernel", "grid"), "[1, 2, 3]");
  EXPECT_EQ(Param(s, "add_kernel", "stream"), "7");
  // Outputs: the step's top-level ranges; the launch and the kernel are live through them.
  EXPECT_TRUE(IsOutput(s, "aten::add"));
  EXPECT_FALSE(IsOutput(s, "cudaLaunchKernel"));
  EXPECT_FALSE(IsOutput(s, "add_kernel"));
  EXPECT_TRUE(NothingDead(s));
}

TEST(ChromeTraceKineto, The2021SchemaMapsOntoTodaysFamilies) {
  // Old category names, string tids on slices and integer tids on flows,
  // flows in category "async".
  auto r = ParseTrace(R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#2", "pid": 1, "tid": "1", "ts": 0, "dur": 100},
    {"ph": "X", "cat": "Operator", "name": "aten::copy_", "pid": 1, "tid": "1", "ts": 10, "dur": 50},
    {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": "1", "ts": 20, "dur": 10},
    {"ph": "s", "cat": "async", "name": "launch", "id": 311, "pid": 1, "tid": 1, "ts": 20},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": "stream 7", "ts": 35, "dur": 4},
    {"ph": "f", "cat": "async", "name": "launch", "id": 311, "pid": 0, "tid": "stream 7", "ts": 35, "bp": "e"}]})");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.node(*r->network.Find("aten::copy_")).family, "cpu_op");
  EXPECT_EQ(r->network.node(*r->network.Find("cudaMemcpyAsync")).family, "cuda_runtime");
  EXPECT_EQ(r->network.node(*r->network.Find("Memcpy HtoD")).family, "gpu_memcpy");
  EXPECT_TRUE(HasEdge(*r, "cudaMemcpyAsync", "Memcpy HtoD", EdgeKind::kLaunch));
  EXPECT_DOUBLE_EQ(Value(*r, "Memcpy HtoD", 2, Metric::kGpuMs), 0.004);
  EXPECT_EQ(r->info.captured, "");  // µs since boot, not wall time
}

TEST(ChromeTraceTensorFlow, NodesAreArgsNameAndInputsAreDataEdges) {
  // x feeds y and m; y's output 1 feeds m; m and y (control input) feed s.
  // DataFlow flows along x -> y and y -> s add nothing; the one from s to z,
  // which no input names, is a flow edge.
  auto r = ParseTrace(R"({"traceEvents": [
    {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/job:localhost/replica:0/task:0/cpu:0 Compute"}},
    {"ph": "X", "cat": "Op", "name": "Const", "pid": 1, "tid": 0, "ts": 100, "dur": 5, "args": {"name": "x", "op": "Const"}},
    {"ph": "X", "cat": "Op", "name": "Identity", "pid": 1, "tid": 1, "ts": 110, "dur": 2, "args": {"name": "y", "op": "Identity", "input0": "x"}},
    {"ph": "X", "cat": "Op", "name": "MatMul", "pid": 1, "tid": 0, "ts": 120, "dur": 10, "args": {"name": "m", "op": "MatMul", "input0": "x", "input1": "y:1"}},
    {"ph": "X", "cat": "Op", "name": "Softmax", "pid": 1, "tid": 0, "ts": 131, "dur": 4, "args": {"name": "s", "op": "Softmax", "input0": "m", "input1": "^y", "input2": "ghost:0"}},
    {"ph": "X", "cat": "Op", "name": "NoOp", "pid": 1, "tid": 1, "ts": 140, "dur": 1, "args": {"name": "z", "op": "NoOp"}},
    {"ph": "s", "cat": "DataFlow", "name": "x", "id": 0, "pid": 1, "tid": 0, "ts": 105},
    {"ph": "t", "cat": "DataFlow", "name": "x", "id": 0, "pid": 1, "tid": 1, "ts": 110},
    {"ph": "s", "cat": "DataFlow", "name": "y", "id": 1, "pid": 1, "tid": 1, "ts": 112},
    {"ph": "t", "cat": "DataFlow", "name": "y", "id": 1, "pid": 1, "tid": 0, "ts": 131},
    {"ph": "s", "cat": "DataFlow", "name": "s", "id": 2, "pid": 1, "tid": 0, "ts": 135},
    {"ph": "t", "cat": "DataFlow", "name": "s", "id": 2, "pid": 1, "tid": 1, "ts": 140}]})");
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "tensorflow");
  ASSERT_EQ(s.network.size(), 5u);
  const Node& m = s.network.node(*s.network.Find("m"));
  EXPECT_EQ(m.type, "MatMul");
  EXPECT_EQ(m.family, "op");
  for (auto [from, to] : {std::pair{"x", "y"}, {"x", "m"}, {"y", "m"}, {"m", "s"}, {"y", "s"}}) {
    EXPECT_TRUE(HasEdge(s, from, to, EdgeKind::kData)) << from << " -> " << to;
  }
  EXPECT_EQ(CountEdges(s, EdgeKind::kData), 5u);
  EXPECT_TRUE(HasEdge(s, "s", "z", EdgeKind::kFlow));
  EXPECT_EQ(CountEdges(s, EdgeKind::kFlow), 1u);
  EXPECT_EQ(WarningWith(s, "input"),
            "1 input(s) name nodes that did not run in the trace: no data edge from them (first: "
            "'ghost' of 's')");
  EXPECT_DOUBLE_EQ(Value(s, "m", 0), 0.010);
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 0.041);  // 141 - 100
  // The sink is the output; everything upstream is live.
  for (const char* id : {"x", "y", "m", "s"}) EXPECT_FALSE(IsOutput(s, id)) << id;
  EXPECT_TRUE(IsOutput(s, "z"));
  EXPECT_TRUE(NothingDead(s));
}

TEST(ChromeTraceOnnxRuntime, NodesWithoutSuffixesFramesFromModelRuns) {
  // tests/data/chrome/onnxruntime_profile.json: run 0 [4000, 4800) has conv1
  // (300 µs) and relu1 (50); run 1 [5000, 5700) has conv1 (280), relu1 (40)
  // and /blocks.0/MatMul (100). Fences and the session's phases are ignored.
  auto r =
      ReadChromeTraceFile(COOKGRAPH_SOURCE_DIR "/tests/data/chrome/onnxruntime_profile.json", {});
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "onnxruntime");
  EXPECT_EQ(s.info.name, "onnxruntime_profile");
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{0, 1}));
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 0.8);
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[1], 0.7);
  ASSERT_EQ(s.network.size(), 3u);
  EXPECT_EQ(s.network.node(0).id, "conv1");
  EXPECT_EQ(s.network.node(0).type, "Conv");
  EXPECT_EQ(s.network.node(0).family, "Node");
  EXPECT_EQ(s.network.node(2).id, "/blocks.0/MatMul");
  EXPECT_EQ(s.network.node(2).parent, "/blocks.0");
  EXPECT_DOUBLE_EQ(Value(s, "conv1", 0), 0.300);
  EXPECT_DOUBLE_EQ(Value(s, "conv1", 1), 0.280);
  EXPECT_DOUBLE_EQ(Value(s, "relu1", 1), 0.040);
  EXPECT_TRUE(std::isnan(Value(s, "/blocks.0/MatMul", 0)));
  EXPECT_DOUBLE_EQ(Value(s, "/blocks.0/MatMul", 1), 0.100);
  EXPECT_EQ(Param(s, "conv1", "provider"), "CPUExecutionProvider");
  EXPECT_EQ(Param(s, "conv1", "input_type_shape"),
            "[{\"float\": [1, 3, 224, 224]}, {\"float\": [64, 3, 7, 7]}]");
  EXPECT_TRUE(s.network.edges().empty());  // ORT gives only the order of execution
  EXPECT_TRUE(IsOutput(s, "relu1"));
  EXPECT_TRUE(NothingDead(s));
}

// Two runs of an ONNX Runtime session with an intra-op pool of two helpers:
// a runs in both (parallel sections [1, 4] then [1]), b has no stats ("": it
// ran no parallel section in a one-thread session's way), c runs in the
// second run on thread `c_tid` at `c_ts` (before a's end: the two overlap).
std::string PoolProfile(int c_tid, int c_ts) {
  auto stats = [](int run, int wait, int revoke, int dist, int enqueue, const char* blocks,
                  int first, int second) {
    return fmt::format(
        R"({{"main_thread": {{"thread_pool_name": "session-1-intra-op", "thread_id": "7", )"
        R"("block_size": {}, "core": 0, "Distribution": {}, "DistributionEnqueue": {}, )"
        R"("Run": {}, "Wait": {}, "WaitRevoke": {}}}, "sub_threads": {{"11": {{"num_run": {}, )"
        R"("core": 1}}, "12": {{"num_run": {}, "core": 0}}}}}})",
        blocks, dist, enqueue, run, wait, revoke, first, second);
  };
  auto node = [](const char* name, int tid, int ts, int dur, const std::string& st) {
    return fmt::format(
        R"({{"cat": "Node", "pid": 1, "tid": {}, "ph": "X", "ts": {}, "dur": {}, )"
        R"("name": "{}_kernel_time", "args": {{"op_name": "MatMul", "thread_scheduling_stats": {}}}}},)",
        tid, ts, dur, name, st);
  };
  return "[" + node("a", 1, 100, 400, stats(300, 20, 5, 3, 2, "[1, 4]", 2, 1)) +
         node("b", 1, 600, 100, "\"\"") + node("a", 1, 2100, 400, stats(200, 0, 0, 0, 0, "[1]", 4, 1)) +
         node("c", c_tid, c_ts, 100, stats(50, 0, 0, 0, 0, "[1]", 4, 1)) +
         R"({"cat": "Session", "pid": 1, "tid": 1, "ph": "X", "ts": 0, "dur": 1000, "name": "model_run", "args": {}},
            {"cat": "Session", "pid": 1, "tid": 1, "ph": "X", "ts": 2000, "dur": 1000, "name": "model_run", "args": {}}])";
}

TEST(ChromeTraceOnnxRuntime, IntraOpThreadsPerNodeFromThreadSchedulingStats) {
  auto r = ParseTrace(PoolProfile(2, 2300));
  ASSERT_TRUE(r) << ErrorOf(r);
  const Analysis analysis = Analyse(*r);
  ASSERT_TRUE(analysis.trace && analysis.trace->intra_op);
  const IntraOp& p = *analysis.trace->intra_op;
  EXPECT_EQ(p.pools, (std::vector<std::string>{"session-1-intra-op"}));
  EXPECT_EQ(p.helpers, 2u);
  EXPECT_EQ(p.steps, 2u);
  EXPECT_DOUBLE_EQ(p.run_ms, 0.275);  // (300 + 200 + 50) µs over two runs
  EXPECT_DOUBLE_EQ(p.wait_ms, 0.0125);
  EXPECT_DOUBLE_EQ(p.distribution_ms, 0.0025);
  EXPECT_DOUBLE_EQ(p.helper_runs, 2.5);  // 3, then 5 by the end of c: 5 over two runs
  ASSERT_EQ(p.nodes.size(), 2u);  // b has no stats
  const IntraOpNode& a = p.nodes[0];
  EXPECT_EQ(r->network.node(a.node).id, "a");
  EXPECT_EQ(a.calls, 2u);
  EXPECT_DOUBLE_EQ(a.node_ms, 0.4);
  EXPECT_DOUBLE_EQ(a.run_ms, 0.25);
  EXPECT_DOUBLE_EQ(a.parallel_sections, 1.5);
  EXPECT_FALSE(a.helper_runs_known);  // c ran beside it: the pool's count is not a's alone
  EXPECT_EQ(r->network.node(p.nodes[1].node).id, "c");
  EXPECT_FALSE(p.nodes[1].helper_runs_known);

  // c after a on the same thread: each node's growth of the count is its own.
  auto sequential = ParseTrace(PoolProfile(1, 2600));
  ASSERT_TRUE(sequential) << ErrorOf(sequential);
  const Analysis second = Analyse(*sequential);
  ASSERT_TRUE(second.trace && second.trace->intra_op);
  const IntraOp& q = *second.trace->intra_op;
  ASSERT_EQ(q.nodes.size(), 2u);
  EXPECT_TRUE(q.nodes[0].helper_runs_known);
  EXPECT_DOUBLE_EQ(q.nodes[0].helper_runs, 2.5);  // (3 + 2) over two runs
  EXPECT_TRUE(q.nodes[1].helper_runs_known);
  EXPECT_DOUBLE_EQ(q.nodes[1].helper_runs, 0);

  // Without stats (a one-thread session), no intra-op figures.
  auto none = ParseTrace(R"([
    {"cat": "Node", "pid": 1, "tid": 1, "ph": "X", "ts": 10, "dur": 5, "name": "a_kernel_time",
     "args": {"thread_scheduling_stats": ""}},
    {"cat": "Session", "pid": 1, "tid": 1, "ph": "X", "ts": 0, "dur": 100, "name": "model_run"}])");
  ASSERT_TRUE(none) << ErrorOf(none);
  EXPECT_FALSE(Analyse(*none).trace->intra_op);
}

TEST(ChromeTraceLegacyPyTorch, ReadAsPyTorchWithoutABudget) {
  // PyTorch without Kineto: a bare array, no categories, "CPU functions".
  // Three steps; step 0 (900 µs) is 3x the median of the others (300): a
  // warm-up, left out. A child ending 1 µs after its parent (the export
  // truncates to whole µs) takes only the overlap from the parent.
  const std::string trace = R"([
    {"name": "ProfilerStep#0", "ph": "X", "ts": 0, "dur": 900, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mm", "ph": "X", "ts": 10, "dur": 800, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "ProfilerStep#1", "ph": "X", "ts": 1000, "dur": 300, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::linear", "ph": "X", "ts": 1010, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::t", "ph": "X", "ts": 1105, "dur": 6, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mm", "ph": "X", "ts": 1120, "dur": 150, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "ProfilerStep#2", "ph": "X", "ts": 2000, "dur": 300, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mm", "ph": "X", "ts": 2010, "dur": 200, "tid": 1, "pid": "CPU functions", "args": {}}
  ])";
  auto r = ParseTrace(trace);
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->info.engine, "pytorch");
  EXPECT_FALSE(r->info.budget());
  EXPECT_EQ(r->samples.frame_index(), (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(Value(*r, "aten::mm", 1), 0.150);  // step 1
  EXPECT_DOUBLE_EQ(Value(*r, "aten::linear", 1), 0.095);  // 100 less the 5 µs overlap
  EXPECT_EQ(r->network.node(*r->network.Find("aten::mm")).family, "cpu_op");
  EXPECT_NE(WarningWith(*r, "step 0 is a warm-up (0.900 ms, 3.0x the median 0.300 ms"), "");
  auto kept = ParseChromeTrace(trace, ChromeTraceOptions{.keep_warmup = true}, "t.json");
  ASSERT_TRUE(kept) << ErrorOf(kept);
  EXPECT_EQ(kept->samples.frame_index(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(WarningWith(*kept, "warm-up"), "");
}

TEST(ChromeTraceWarmUp, NotInAGenericTraceNorUnder1Point5xTheMedian) {
  // A generic trace's frames are its writer's: never a warm-up. Nor is a
  // first PyTorch step at 1.4x the median.
  const std::string generic = R"([
    {"name": "frame 0", "ph": "X", "ts": 0, "dur": 900, "tid": 1, "pid": 1, "cat": "x"},
    {"name": "frame 1", "ph": "X", "ts": 1000, "dur": 300, "tid": 1, "pid": 1, "cat": "x"},
    {"name": "frame 2", "ph": "X", "ts": 2000, "dur": 300, "tid": 1, "pid": 1, "cat": "x"},
    {"name": "work", "ph": "X", "ts": 10, "dur": 10, "tid": 1, "pid": 1, "cat": "x"}
  ])";
  auto r = ParseTrace(generic, "^frame (\\d+)$");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->samples.frame_count(), 3u);
  const std::string close = R"([
    {"name": "ProfilerStep#0", "ph": "X", "ts": 0, "dur": 420, "tid": 1, "pid": 1, "cat": "user_annotation"},
    {"name": "ProfilerStep#1", "ph": "X", "ts": 1000, "dur": 300, "tid": 1, "pid": 1, "cat": "user_annotation"},
    {"name": "ProfilerStep#2", "ph": "X", "ts": 2000, "dur": 300, "tid": 1, "pid": 1, "cat": "user_annotation"},
    {"name": "aten::mm", "ph": "X", "ts": 10, "dur": 10, "tid": 1, "pid": 1, "cat": "cpu_op"}
  ])";
  auto k = ParseTrace(close);
  ASSERT_TRUE(k) << ErrorOf(k);
  EXPECT_EQ(k->samples.frame_count(), 3u);
}

TEST(ChromeTraceRounding, KeptToTheNanosecondUnlessHtaRoundingIsAsked) {
  // aten::mm [10.4, 12.6) µs; aten::add [20.2, 20.9), shorter than the whole
  // µs it spans: HTA makes it [21, 20), cookgraph 0 long at 21.
  const std::string trace = R"({"schemaVersion": 1, "traceEvents": [
    {"name": "ProfilerStep#1", "ph": "X", "ts": 0, "dur": 100, "tid": 1, "pid": 1, "cat": "user_annotation"},
    {"name": "aten::mm", "ph": "X", "ts": 10.4, "dur": 2.2, "tid": 1, "pid": 1, "cat": "cpu_op"},
    {"name": "aten::add", "ph": "X", "ts": 20.2, "dur": 0.7, "tid": 1, "pid": 1, "cat": "cpu_op"}]})";
  auto exact = ParseTrace(trace);
  ASSERT_TRUE(exact) << ErrorOf(exact);
  EXPECT_DOUBLE_EQ(Value(*exact, "aten::mm", 1), 0.0022);
  EXPECT_DOUBLE_EQ(Value(*exact, "aten::add", 1), 0.0007);
  EXPECT_NE(WarningWith(*exact, "times are kept to the nanosecond"), "");
  auto hta = ParseChromeTrace(trace, ChromeTraceOptions{.hta_rounding = true}, "t.json");
  ASSERT_TRUE(hta) << ErrorOf(hta);
  EXPECT_DOUBLE_EQ(Value(*hta, "aten::mm", 1), 0.001);  // [11, 12)
  EXPECT_DOUBLE_EQ(Value(*hta, "aten::add", 1), 0.0);
  EXPECT_NE(WarningWith(*hta, "1 event(s) shorter than that are 0 long"), "");
  // Whole µs everywhere: nothing to say.
  auto whole = ParseTrace(R"([{"name": "a", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": 1, "cat": "cpu_op"}])");
  ASSERT_TRUE(whole) << ErrorOf(whole);
  EXPECT_EQ(WarningWith(*whole, "nanosecond"), "");
}

// The real traces (tests/data/fixtures/README.md says where each comes from).
Result<Snapshot> Fixture(const std::string& name) {
  return ReadChromeTraceFile(COOKGRAPH_SOURCE_DIR "/tests/data/fixtures/traces/" + name, {});
}

std::string TopNode(const Snapshot& s) {
  return s.network.node(Rank(Analyse(s), SortKey::kScore).front()).id;
}

TEST(ChromeTraceFixtures, KinetoCudaEventSync) {
  auto r = Fixture("kineto_cuda_event_sync.json.gz");
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "pytorch");
  EXPECT_EQ(s.info.captured, "2024-02-08T18:38:45Z");  // aten::ones at 1707417525509905 µs
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{100}));
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 3.154);  // ProfilerStep#100's dur
  // 25 names; the 3 GPU-side waits (cuda_sync) are on the timeline, not nodes.
  EXPECT_EQ(s.network.size(), 22u);
  EXPECT_EQ(CountEdges(s, EdgeKind::kCall), 10u);
  EXPECT_EQ(CountEdges(s, EdgeKind::kLaunch), 5u);  // the ac2g pairs with an s, to work
  EXPECT_EQ(CountEdges(s, EdgeKind::kFlow), 0u);
  EXPECT_DOUBLE_EQ(Value(s, "aten::ones", 100), 0.008);        // 2245 - 2187 - 50
  EXPECT_DOUBLE_EQ(Value(s, "cudaLaunchKernel", 100), 0.067);  // 36 + 10 + 12 + 9
  EXPECT_EQ(Value(s, "cudaLaunchKernel", 100, Metric::kCooks), 4);
  EXPECT_DOUBLE_EQ(Value(s, "aten::sum", 100), 0.028);  // (39 - 34) + (34 - 1 - 10)
  const std::string spin = "at::cuda::(anonymous namespace)::spin_kernel(long)";
  EXPECT_DOUBLE_EQ(Value(s, spin, 100, Metric::kGpuMs), 0.036);
  EXPECT_TRUE(HasEdge(s, "cudaLaunchKernel", spin, EdgeKind::kLaunch));
  EXPECT_FALSE(s.network.Find("Stream Sync"));
  ASSERT_EQ(s.timelines.size(), 1u);
  const Timeline& t = s.timelines[0];
  const auto sync = std::find_if(t.events.begin(), t.events.end(), [&](const TimelineEvent& e) {
    return t.name(e) == "Stream Sync";
  });
  ASSERT_NE(sync, t.events.end());
  EXPECT_EQ(sync->kind, EventKind::kGpuSync);
  ASSERT_NE(sync->link, kNoIndex);  // its call, by correlation
  EXPECT_EQ(t.name(t.events[sync->link]), "cudaStreamSynchronize");
  EXPECT_EQ(TopNode(s), "aten::empty");  // 2187 µs inside aten::ones
  EXPECT_TRUE(NothingDead(s));
}

TEST(ChromeTraceFixtures, KinetoCpuOnly) {
  auto r = Fixture("kineto_cpu_only.json.gz");
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "pytorch");
  // baseTimeNanoseconds 1719853884000000000 + ts 1212075548353.304 µs.
  EXPECT_EQ(s.info.captured, "2024-07-15T17:52:39Z");
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{551}));
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 210.109162);
  ASSERT_EQ(s.network.size(), 1u);
  // Two all_reduce calls start inside the step, on threads 3553 and 3554.
  EXPECT_DOUBLE_EQ(Value(s, "gloo:all_reduce", 551), 343.680971);  // 173.209713 + 170.471258
  EXPECT_EQ(Value(s, "gloo:all_reduce", 551, Metric::kCooks), 2);
  // 8 more all_reduce and 4 aten::empty start after the step.
  EXPECT_NE(WarningWith(s, "12 slice(s) lie outside every step (ProfilerStep#N)"), "");
  EXPECT_EQ(Param(s, "gloo:all_reduce", "input_dims"), "[[321271]]");
  EXPECT_TRUE(NothingDead(s));
}

TEST(ChromeTraceFixtures, Kineto2021Schema) {
  auto r = Fixture("kineto_2021_schema.json");
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "pytorch");
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{2}));
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 13.410);
  EXPECT_EQ(s.network.size(), 68u);
  EXPECT_EQ(CountEdges(s, EdgeKind::kCall), 75u);
  EXPECT_EQ(CountEdges(s, EdgeKind::kLaunch), 14u);
  // aten::empty has no children: 23 calls in the step, 863 µs in all.
  EXPECT_EQ(TopNode(s), "aten::empty");
  EXPECT_DOUBLE_EQ(Value(s, "aten::empty", 2), 0.863);
  EXPECT_EQ(Value(s, "aten::empty", 2, Metric::kCooks), 23);
  // Two HtoD copies of 1 µs, launched from thread "24572" by flows on tid 24572.
  EXPECT_DOUBLE_EQ(Value(s, "Memcpy HtoD (Pageable -> Device)", 2, Metric::kGpuMs), 0.002);
  EXPECT_TRUE(HasEdge(s, "cudaMemcpyAsync", "Memcpy HtoD (Pageable -> Device)", EdgeKind::kLaunch));
  EXPECT_DOUBLE_EQ(Value(s, "volta_sgemm_128x32_nt", 2), 0.006);
  EXPECT_EQ(s.network.node(*s.network.Find("volta_sgemm_128x32_nt")).family, "kernel");
  EXPECT_TRUE(NothingDead(s));
}

TEST(ChromeTraceFixtures, TensorFlowTimeline) {
  auto r = Fixture("tf1_timeline_cpu_step.json");
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "tensorflow");
  EXPECT_EQ(s.info.captured, "2017-03-23T14:39:59Z");
  EXPECT_EQ(s.network.size(), 67u);  // 67 X events, each its own args.name
  EXPECT_EQ(CountEdges(s, EdgeKind::kData), 104u);
  EXPECT_EQ(CountEdges(s, EdgeKind::kFlow), 0u);  // every DataFlow flow follows an input
  EXPECT_EQ(CountEdges(s, EdgeKind::kCall), 0u);
  EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{0}));
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 15.554);  // 1490279999430799 - ...415245
  EXPECT_EQ(TopNode(s), "gradients/layer_1/fully_connected/MatMul_grad/MatMul");
  EXPECT_DOUBLE_EQ(Value(s, "gradients/layer_1/fully_connected/MatMul_grad/MatMul", 0), 4.670);
  EXPECT_TRUE(HasEdge(s, "layer_1/fully_connected/weights", "layer_1/fully_connected/weights/read",
                      EdgeKind::kData));
  EXPECT_TRUE(IsOutput(s, "GradientDescent"));
  EXPECT_FALSE(IsOutput(s, "layer_1/fully_connected/MatMul"));
  EXPECT_NE(WarningWith(s, "6 input(s) name nodes that did not run"), "");
  EXPECT_TRUE(NothingDead(s));
}

}  // namespace
}  // namespace cookgraph
