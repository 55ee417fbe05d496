#include "metrics/event_critical_path.h"

#include "tests/metrics/timeline_maker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cookgraph {
namespace {

using namespace testing_timeline;  // NOLINT: Spec, Make and the tracks

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The edges as "kind from:b|e to:b|e weight", events by source.
std::vector<std::string> Edges(const Timeline& t, const EventPath& p) {
  std::vector<std::string> out;
  for (const EventEdge& e : p.edges) {
    out.push_back(std::string(EventEdgeKindName(e.kind)) + " " +
                  std::to_string(t.events[e.from].source) + (e.from_end ? ":e " : ":b ") +
                  std::to_string(t.events[e.to].source) + (e.to_end ? ":e " : ":b ") +
                  std::to_string(e.weight_ns));
  }
  return out;
}

std::vector<uint32_t> PathSources(const Timeline& t, const EventPath& p) {
  std::vector<uint32_t> out;
  for (uint32_t e : p.events) out.push_back(t.events[e].source);
  return out;
}

EventPathOptions Whole() {
  EventPathOptions o;
  o.annotation = "";
  return o;
}

TEST(EventCriticalPath, AnIdleStreamGivesALaunchDelayEdge) {
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"gemm", EventKind::kKernel, kStream7, 20, 10, 1},
  });
  auto p = EventCriticalPath(t, EventPathOptions{});
  ASSERT_TRUE(p.ok()) << p.error().Format();
  EXPECT_EQ(p->window_start_ns, 0);
  EXPECT_EQ(p->window_end_ns, 100);
  EXPECT_THAT(Edges(t, *p),
              ElementsAre("operator 1:b 1:e 5", "operator 2:b 2:e 10", "launch_delay 1:b 2:b 10"));
  // The launch's start, the kernel's start (10 later), its end (10 more).
  EXPECT_EQ(p->length_ns, 20);
  EXPECT_THAT(PathSources(t, *p), ElementsAre(1u, 2u));
  EXPECT_TRUE(p->warnings.empty());
}

TEST(EventCriticalPath, KernelsQueuedOnAStreamGiveAKernelKernelDelayEdge) {
  const Timeline t = Make({
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 2, 1},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 25, 2, 2},
      {"first", EventKind::kKernel, kStream7, 20, 10, 1},
      {"second", EventKind::kKernel, kStream7, 35, 5, 2},
  });
  auto p = EventCriticalPath(t, Whole());
  ASSERT_TRUE(p.ok()) << p.error().Format();
  // The second kernel was launched while the first one ran: it waited for the
  // kernel, not for its launch. The launch calls' spans come first, from the
  // CUDA runtime lock's pass.
  EXPECT_THAT(Edges(t, *p),
              ElementsAre("operator 0:b 0:e 2", "operator 1:b 1:e 2", "dependency 0:e 1:b 0",
                          "operator 2:b 2:e 10", "launch_delay 0:b 2:b 10", "operator 3:b 3:e 5",
                          "kernel_kernel_delay 2:e 3:b 5"));
  EXPECT_EQ(p->length_ns, 30);  // 10 launch delay + 10 + 5 wait + 5
  EXPECT_THAT(PathSources(t, *p), ElementsAre(0u, 2u, 3u));

  // With HTA's zero-weight launch edges, the second kernel also hangs from its launch.
  EventPathOptions zero = Whole();
  zero.zero_weight_launch_edges = true;
  auto z = EventCriticalPath(t, zero);
  ASSERT_TRUE(z.ok());
  EXPECT_THAT(Edges(t, *z), ::testing::Contains("launch_delay 1:b 3:b 0"));
  EXPECT_EQ(z->length_ns, 30);
}

TEST(EventCriticalPath, AGapOf1500usOrMoreBetweenKernelsIsNoKernelKernelDelay) {
  for (const int64_t gap : {1'499'999, 1'500'000}) {
    const Timeline t = Make({
        {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 2, 1},
        {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 22, 2, 2},
        {"first", EventKind::kKernel, kStream7, 20, 10, 1},
        {"second", EventKind::kKernel, kStream7, 30 + gap, 5, 2},
    });
    auto p = EventCriticalPath(t, Whole());
    ASSERT_TRUE(p.ok()) << p.error().Format();
    const std::vector<std::string> edges = Edges(t, *p);
    const std::string kk = "kernel_kernel_delay 2:e 3:b " + std::to_string(gap);
    if (gap < 1'500'000) {
      EXPECT_NE(std::find(edges.begin(), edges.end(), kk), edges.end()) << gap;
      EXPECT_EQ(p->length_ns, 10 + 10 + gap + 5);  // launch delay, first, gap, second
    } else {
      // HTA takes so long a gap for a dependency it does not see: the second
      // kernel, launched while the first one ran, has no edge into it.
      EXPECT_EQ(std::find(edges.begin(), edges.end(), kk), edges.end());
      EXPECT_THAT(p->warnings, ElementsAre(HasSubstr("has no edge into its start")));
      EXPECT_EQ(p->length_ns, 20);
    }
  }
}

// A second CPU thread of the same process, tid 2 (track 4).
constexpr uint32_t kCpu2 = 4;
Timeline WithSecondThread(Timeline t) {
  t.tracks.push_back(Track{.pid = "100", .tid = "2", .label = "thread 2 (pid 100)"});
  return t;
}

TEST(EventCriticalPath, TheCudaRuntimeLockJoinsCallsOnTwoThreads) {
  // Two launches overlap on two threads; the one that ends first held the
  // lock, so the other one's start waits for its end, and its own end for
  // that end: the first call's span is not an edge.
  const Timeline t = WithSecondThread(Make({
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 30},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu2, 15, 10},
  }));
  auto p = EventCriticalPath(t, Whole());
  ASSERT_TRUE(p.ok()) << p.error().Format();
  EXPECT_THAT(Edges(t, *p), ElementsAre("operator 1:b 1:e 10", "dependency 0:b 1:e 0",
                                        "dependency 1:e 0:e 0"));
  // The path ends at the first point of the longest distance (networkx's
  // dag_longest_path): the second call's end.
  EXPECT_EQ(p->length_ns, 10);
  EXPECT_THAT(PathSources(t, *p), ElementsAre(1u));
}

TEST(EventCriticalPath, TheAutogradThreadIsWalkedAsTheForwardThread) {
  const std::vector<Spec> specs = {
      {"forward", EventKind::kCpuOp, kCpu, 0, 10},
      {"autograd::engine::evaluate_function: AddmmBackward0", EventKind::kCpuOp, kCpu2, 20, 10},
  };
  auto p = EventCriticalPath(WithSecondThread(Make(specs)), Whole());
  ASSERT_TRUE(p.ok()) << p.error().Format();
  // One call stack: the backward op follows the forward one.
  const Timeline t = WithSecondThread(Make(specs));
  EXPECT_THAT(Edges(t, *p), ElementsAre("operator 0:b 0:e 10", "dependency 0:e 1:b 0",
                                        "operator 1:b 1:e 10"));
  EXPECT_EQ(p->length_ns, 20);

  // A Python function named "...forward..." is not an operator or a user
  // annotation: with it on a third thread the forward thread is still found.
  Timeline three = WithSecondThread(Make(specs));
  three.tracks.push_back(Track{.pid = "100", .tid = "3", .label = "thread 3 (pid 100)"});
  TimelineEvent python = three.events[0];
  python.track = 5;
  python.source = 2;
  python.kind = EventKind::kAnnotation;
  python.python_function = true;
  three.events.push_back(python);
  auto q = EventCriticalPath(three, Whole());
  ASSERT_TRUE(q.ok()) << q.error().Format();
  EXPECT_EQ(q->length_ns, 20);
  // As a user annotation it makes two "forward" threads: no merge.
  three.events.back().python_function = false;
  auto r = EventCriticalPath(three, Whole());
  ASSERT_TRUE(r.ok()) << r.error().Format();
  EXPECT_EQ(r->length_ns, 10);
}

TEST(EventCriticalPath, AStreamSynchronizeWaitsForTheStreamsLastKernel) {
  const Timeline t = Make({
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"cudaStreamSynchronize", EventKind::kRuntime, kCpu, 16, 34, 2},
      {"gemm", EventKind::kKernel, kStream7, 20, 25, 1},
      {"Stream Sync", EventKind::kGpuSync, kStream7, 16, 34, 2},
      {"aten::relu", EventKind::kCpuOp, kCpu, 55, 5},
  });
  auto p = EventCriticalPath(t, Whole());
  ASSERT_TRUE(p.ok()) << p.error().Format();
  // The blocking call's own span weighs 0; the kernel's end leads to its end,
  // and the thread goes on from there.
  EXPECT_THAT(Edges(t, *p),
              ElementsAre("operator 0:b 0:e 5", "dependency 0:e 1:b 0", "operator 1:b 1:e 0",
                          "dependency 1:e 4:b 0", "operator 4:b 4:e 5", "operator 2:b 2:e 25",
                          "launch_delay 0:b 2:b 10", "sync_dependency 2:e 1:e 0"));
  EXPECT_EQ(p->length_ns, 40);
  EXPECT_THAT(PathSources(t, *p), ElementsAre(0u, 2u, 1u, 4u));
}

TEST(EventCriticalPath, AnEventSynchronizeWaitsForTheKernelBeforeTheRecord) {
  // (Not the launch at traceEvents[0]: HTA reads an index_correlation of 0 as "none".)
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"cudaEventRecord", EventKind::kRuntime, kCpu, 16, 2, 2},
      {"cudaEventSynchronize", EventKind::kRuntime, kCpu, 20, 40, 3},
      {"gemm", EventKind::kKernel, kStream7, 20, 30, 1},
      {"Event Sync", EventKind::kGpuSync, kDevice, 20, 40, 3, 7, 2},
      {"aten::relu", EventKind::kCpuOp, kCpu, 65, 5},
  });
  auto p = EventCriticalPath(t, EventPathOptions{});
  ASSERT_TRUE(p.ok()) << p.error().Format();
  EXPECT_THAT(Edges(t, *p), ::testing::Contains("sync_dependency 4:e 3:e 0"));
  EXPECT_THAT(Edges(t, *p), ::testing::Contains("operator 3:b 3:e 0"));  // a blocking call
  EXPECT_EQ(p->length_ns, 45);  // 10 launch delay, 30 kernel, 5 relu
  EXPECT_THAT(PathSources(t, *p), ElementsAre(1u, 4u, 3u, 6u));
}

TEST(EventCriticalPath, AStreamWaitEventMakesTheNextKernelWaitForTheRecordedOne) {
  // gemm on stream 7, cudaEventRecord after it; stream 8 waits for that event
  // (its "Stream Wait Event"), so the next kernel launched into stream 8 waits
  // for gemm, not for its launch.
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 1000},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"cudaEventRecord", EventKind::kRuntime, kCpu, 16, 2, 2},
      {"cudaStreamWaitEvent", EventKind::kRuntime, kCpu, 20, 2, 3},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 25, 5, 4},
      {"aten::relu", EventKind::kCpuOp, kCpu, 40, 5},
      {"gemm", EventKind::kKernel, kStream7, 20, 80, 1},
      {"Stream Wait Event", EventKind::kGpuSync, kStream8, 22, 1, 3, 7, 2},
      {"add", EventKind::kKernel, kStream8, 101, 10, 4},
  });
  for (bool zero : {false, true}) {
    EventPathOptions o;
    o.zero_weight_launch_edges = zero;
    auto p = EventCriticalPath(t, o);
    ASSERT_TRUE(p.ok()) << p.error().Format();
    const auto edges = Edges(t, *p);
    EXPECT_THAT(edges, ::testing::Contains("sync_dependency 6:e 8:b 0"));
    EXPECT_THAT(edges, ::testing::Contains("launch_delay 1:b 6:b 10"));
    EXPECT_EQ(std::count(edges.begin(), edges.end(), "launch_delay 4:b 8:b 0"), zero ? 1 : 0);
    EXPECT_EQ(p->length_ns, 100);  // 10 launch delay, 80 gemm, 10 add
    EXPECT_THAT(PathSources(t, *p), ElementsAre(1u, 6u, 8u));
  }
}

TEST(EventCriticalPath, WithSeveralStepsTheLastStepIsLeftOut) {
  // HTA's multi-step filter: the CPU events from the last step's start on go,
  // and the GPU events they launched.
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"ProfilerStep#2", EventKind::kMarker, kCpu, 100, 100},
      {"gemm", EventKind::kKernel, kStream7, 20, 10, 1},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 110, 5, 2},
      {"gemm", EventKind::kKernel, kStream7, 120, 30, 2},
  });
  auto whole = EventCriticalPath(t, Whole());
  ASSERT_TRUE(whole.ok()) << whole.error().Format();
  EXPECT_EQ(whole->window_start_ns, 0);
  EXPECT_EQ(whole->window_end_ns, 100);
  EXPECT_THAT(Edges(t, *whole),
              ElementsAre("operator 1:b 1:e 5", "operator 3:b 3:e 10", "launch_delay 1:b 3:b 10"));
  EventPathOptions second;
  second.instance = 1;
  auto p = EventCriticalPath(t, second);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.error().message, HasSubstr("has 1 instance"));
}

TEST(EventCriticalPath, NestedOperatorsGiveOperatorEdgesAndTopLevelOnesADependency) {
  const Timeline t = Make({
      {"aten::linear", EventKind::kCpuOp, kCpu, 0, 100},
      {"aten::addmm", EventKind::kCpuOp, kCpu, 10, 50},
      {"record_param_comms", EventKind::kAnnotation, kCpu, 15, 30},  // walked through
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 20, 10},
      {"aten::relu", EventKind::kCpuOp, kCpu, 120, 10},
  });
  auto p = EventCriticalPath(t, Whole());
  ASSERT_TRUE(p.ok()) << p.error().Format();
  // The launch call's span comes first, from the CUDA runtime lock's pass.
  EXPECT_THAT(Edges(t, *p),
              ElementsAre("operator 3:b 3:e 10", "operator 0:b 1:b 10", "operator 1:b 3:b 10",
                          "operator 3:e 1:e 30", "operator 1:e 0:e 40", "dependency 0:e 4:b 0",
                          "operator 4:b 4:e 10"));
  EXPECT_EQ(p->length_ns, 110);
  EXPECT_THAT(PathSources(t, *p), ElementsAre(0u, 1u, 3u, 4u));
  // Each path edge counts for the event it leads to (node = name here).
  const auto per_node = PathTimePerNode(t, *p);
  int64_t sum = 0;
  for (const auto& [node, ns] : per_node) sum += ns;
  EXPECT_EQ(sum, p->length_ns);
  ASSERT_FALSE(per_node.empty());
  EXPECT_EQ(t.names[per_node[0].first], "aten::linear");  // 40 from addmm's end to its own
  EXPECT_EQ(per_node[0].second, 40);
}

TEST(EventCriticalPath, ThePathIsNeverLongerThanAWindowThatHoldsEverything) {
  // Operators each launching a kernel, on two streams, each kernel after its
  // launch and after the stream's previous kernel; a device sync at the end.
  std::vector<Spec> specs;
  specs.push_back({"ProfilerStep#3", EventKind::kMarker, kCpu, 0, 100'000});
  int64_t cpu = 100, end7 = 0, end8 = 0;
  uint32_t corr = 1;
  for (int i = 0; i < 40; ++i, ++corr) {
    const int64_t dur = 50 + (i * 37) % 400;
    specs.push_back({"aten::op", EventKind::kCpuOp, kCpu, cpu, 30 + i % 7 * 10});
    specs.push_back({"cudaLaunchKernel", EventKind::kRuntime, kCpu, cpu + 5, 20, corr});
    const bool seven = i % 3 != 0;
    int64_t& stream_end = seven ? end7 : end8;
    const int64_t start = std::max(cpu + 5 + 15 + i % 5 * 40, stream_end + i % 4 * 10);
    specs.push_back({"kernel", EventKind::kKernel, seven ? kStream7 : kStream8, start, dur, corr});
    stream_end = start + dur;
    cpu += 100 + i % 6 * 30;
  }
  const int64_t sync_end = std::max({end7, end8, cpu + 10}) + 5;
  specs.push_back({"cudaDeviceSynchronize", EventKind::kRuntime, kCpu, cpu, sync_end - cpu, corr});
  specs.push_back({"Context Sync", EventKind::kGpuSync, kDevice, cpu, sync_end - cpu, corr});
  const Timeline t = Make(specs);
  for (bool zero : {false, true}) {
    EventPathOptions o;
    o.zero_weight_launch_edges = zero;
    auto p = EventCriticalPath(t, o);
    ASSERT_TRUE(p.ok()) << p.error().Format();
    EXPECT_EQ(p->window_start_ns, 0);
    EXPECT_EQ(p->window_end_ns, 100'000);
    EXPECT_GT(p->length_ns, 0);
    EXPECT_LE(p->length_ns, p->window_end_ns - p->window_start_ns);
    int64_t sum = 0;
    for (uint32_t i : p->path) sum += p->edges[i].weight_ns;
    EXPECT_EQ(sum, p->length_ns);
    for (size_t k = 1; k < p->path.size(); ++k) {  // a path: each edge starts where the last ended
      EXPECT_EQ(p->edges[p->path[k]].from, p->edges[p->path[k - 1]].to);
      EXPECT_EQ(p->edges[p->path[k]].from_end, p->edges[p->path[k - 1]].to_end);
    }
    EXPECT_EQ(p->clamped, 0u);
    EXPECT_TRUE(p->warnings.empty()) << p->warnings.front();
  }
}

TEST(EventCriticalPath, AMissingAnnotationOrInstanceIsAnError) {
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"gemm", EventKind::kKernel, kStream7, 20, 10, 1},
  });
  EventPathOptions o;
  o.annotation = "forward";
  auto missing = EventCriticalPath(t, o);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("'forward'"));
  o.annotation = "ProfilerStep";
  o.instance = 3;
  auto beyond = EventCriticalPath(t, o);
  ASSERT_FALSE(beyond.ok());
  EXPECT_THAT(beyond.error().message, HasSubstr("'ProfilerStep' has 1 instance"));
  EXPECT_THAT(beyond.error().message, HasSubstr("instance 3"));
}

TEST(EventCriticalPath, AWindowWithoutOperatorsHasNoPath) {
  const Timeline t = Make({{"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100}});
  auto p = EventCriticalPath(t, EventPathOptions{});
  EXPECT_FALSE(p.ok());
  EXPECT_FALSE(EventCriticalPath(Timeline{}, Whole()).ok());
}

}  // namespace
}  // namespace cookgraph
