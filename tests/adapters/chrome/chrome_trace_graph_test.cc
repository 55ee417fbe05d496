// The Chrome trace adapter's graph and frames on small hand-written traces:
// flows (v1 and v2) into launch and flow edges, frame markers, the frame of
// launched GPU work, and the outputs that keep dead-cook analysis honest.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "adapters/chrome/chrome_trace.h"
#include "metrics/analysis.h"
#include "tests/adapters/chrome/chrome_trace_test.h"

namespace cookgraph {
namespace {

using namespace testing;  // the helpers of tests/adapters/chrome/chrome_trace_test.h

// A [0, 10) on thread 1 starts flow q/1 at 5; thread 2 has Y [20, 30) around
// the flow's end at 25 and K [40, 50) after it.
std::string FlowTrace(const std::string& end_extra) {
  return R"([
    {"ph": "X", "name": "A", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "s", "cat": "q", "id": 1, "tid": 1, "ts": 5},
    {"ph": "X", "name": "Y", "tid": 2, "ts": 20, "dur": 10},
    {"ph": "X", "name": "K", "tid": 2, "ts": 40, "dur": 10},
    {"ph": "f", "cat": "q", "id": 1, "tid": 2, "ts": 25)" +
         end_extra + "}]";
}

TEST(ChromeTraceFlows, AnEndBindsToTheNextSliceOrWithBpEToTheEnclosingOne) {
  auto next = ParseTrace(FlowTrace(""));
  ASSERT_TRUE(next) << ErrorOf(next);
  EXPECT_TRUE(HasEdge(*next, "A", "K", EdgeKind::kFlow));
  EXPECT_EQ(CountEdges(*next, EdgeKind::kFlow), 1u);
  auto enclosing = ParseTrace(FlowTrace(R"(, "bp": "e")"));
  ASSERT_TRUE(enclosing) << ErrorOf(enclosing);
  EXPECT_TRUE(HasEdge(*enclosing, "A", "Y", EdgeKind::kFlow));
  EXPECT_EQ(CountEdges(*enclosing, EdgeKind::kFlow), 1u);
}

TEST(ChromeTraceFlows, StepsChainAndTheKeyIncludesTheCategory) {
  // q/5: s on A, t on B, f on C. other/5 ends on D: another flow, never started.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "A", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "B", "tid": 2, "ts": 20, "dur": 10},
    {"ph": "X", "name": "C", "tid": 3, "ts": 40, "dur": 10},
    {"ph": "X", "name": "D", "tid": 4, "ts": 60, "dur": 10},
    {"ph": "f", "cat": "q", "id": 5, "tid": 3, "ts": 41, "bp": "e"},
    {"ph": "t", "cat": "q", "id": 5, "tid": 2, "ts": 21},
    {"ph": "s", "cat": "q", "id": 5, "tid": 1, "ts": 1},
    {"ph": "f", "cat": "other", "id": 5, "tid": 4, "ts": 61, "bp": "e"}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(HasEdge(*r, "A", "B", EdgeKind::kFlow));
  EXPECT_TRUE(HasEdge(*r, "B", "C", EdgeKind::kFlow));
  EXPECT_EQ(r->network.edges().size(), 2u);
  EXPECT_TRUE(r->warnings.size() == 1) << r->warnings.size();  // only "one frame"
}

TEST(ChromeTraceFlows, Version2FlowsBindToTheirSlices) {
  // A -> B -> C through bind_id "0x1"; the B/E slice P starts bind_id 9 into Q.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "A", "tid": 1, "ts": 0, "dur": 10, "bind_id": "0x1", "flow_out": true},
    {"ph": "X", "name": "B", "tid": 2, "ts": 20, "dur": 10, "bind_id": "0x1", "flow_in": true,
     "flow_out": true},
    {"ph": "X", "name": "C", "tid": 3, "ts": 40, "dur": 10, "bind_id": "0x1", "flow_in": true},
    {"ph": "B", "name": "P", "tid": 5, "ts": 60, "bind_id": 9, "flow_out": true},
    {"ph": "E", "tid": 5, "ts": 70},
    {"ph": "X", "name": "Q", "tid": 6, "ts": 80, "dur": 10, "bind_id": 9, "flow_in": true}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(HasEdge(*r, "A", "B", EdgeKind::kFlow));
  EXPECT_TRUE(HasEdge(*r, "B", "C", EdgeKind::kFlow));
  EXPECT_TRUE(HasEdge(*r, "P", "Q", EdgeKind::kFlow));
  EXPECT_EQ(r->network.edges().size(), 3u);
}

TEST(ChromeTraceFlows, EndsWithoutAStartAreNormalAndAStartOnNoSliceIsCounted) {
  // Kineto writes flow ends without starts: nothing, and no warning. A start
  // at 100 on thread 1, where no slice is, loses the edge to Y: one warning.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "A", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "Y", "tid": 2, "ts": 20, "dur": 10},
    {"ph": "f", "cat": "q", "id": 1, "tid": 2, "ts": 25, "bp": "e"},
    {"ph": "f", "cat": "q", "id": 1, "tid": 1, "ts": 5, "bp": "e"},
    {"ph": "s", "cat": "q", "id": 2, "tid": 1, "ts": 100},
    {"ph": "f", "cat": "q", "id": 2, "tid": 2, "ts": 120, "bp": "e"},
    {"ph": "X", "name": "Z", "tid": 2, "ts": 115, "dur": 10}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(r->network.edges().empty());
  EXPECT_EQ(WarningWith(*r, "flow event"),
            "1 flow event(s) lie on no slice of their thread: their edges are missing (first: "
            "traceEvents[5])");
}

TEST(ChromeTraceFlows, EdgesAndTheFirstLostFlowGoByTheOrderTheKeysFirstAppearIn) {
  // Keys q/30, q/20, q/10, q/5 first appear in that order: the edges and the
  // first lost flow event follow it, not the ids' order.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "A", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "B", "tid": 2, "ts": 20, "dur": 10},
    {"ph": "X", "name": "C", "tid": 3, "ts": 40, "dur": 10},
    {"ph": "X", "name": "D", "tid": 4, "ts": 60, "dur": 10},
    {"ph": "s", "cat": "q", "id": 30, "tid": 1, "ts": 15},
    {"ph": "f", "cat": "q", "id": 30, "tid": 2, "ts": 25, "bp": "e"},
    {"ph": "s", "cat": "q", "id": 20, "tid": 1, "ts": 5},
    {"ph": "s", "cat": "q", "id": 10, "tid": 3, "ts": 45},
    {"ph": "f", "cat": "q", "id": 20, "tid": 2, "ts": 25, "bp": "e"},
    {"ph": "f", "cat": "q", "id": 10, "tid": 4, "ts": 65, "bp": "e"},
    {"ph": "s", "cat": "q", "id": 5, "tid": 3, "ts": 55},
    {"ph": "f", "cat": "q", "id": 5, "tid": 4, "ts": 65, "bp": "e"}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  std::vector<std::string> edges;
  for (const Edge& e : r->network.edges()) {
    edges.push_back(r->network.node(e.from).id + ">" + r->network.node(e.to).id);
  }
  EXPECT_EQ(edges, (std::vector<std::string>{"A>B", "C>D"}));
  EXPECT_EQ(WarningWith(*r, "flow event"),
            "2 flow event(s) lie on no slice of their thread: their edges are missing (first: "
            "traceEvents[5])");
}

// Two steps on thread 1: #5 [0, 100) and #6 [100, 200). A runtime call at 90
// launches kernel k, which runs at [120, 130) on the GPU, in step 6's time; an
// unlaunched k at [150, 160); c [250, 260) is after the last step.
constexpr const char* kSteps = R"([
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#6", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90, "dur": 5},
  {"ph": "s", "cat": "ac2g", "id": 3, "pid": 1, "tid": 1, "ts": 90},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 120, "dur": 10},
  {"ph": "f", "cat": "ac2g", "id": 3, "pid": 0, "tid": 7, "ts": 120, "bp": "e"},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 150, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 110, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 2, "ts": 150, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 250, "dur": 10}])";

TEST(ChromeTraceFrames, ProfilerStepsAreFramesNotNodes) {
  auto r = ParseTrace(kSteps);
  ASSERT_TRUE(r) << ErrorOf(r);
  const Samples& samples = r->samples;
  EXPECT_EQ(samples.frame_index(), (std::vector<int64_t>{5, 6}));
  ASSERT_EQ(samples.frame_ms().size(), 2u);
  EXPECT_DOUBLE_EQ(samples.frame_ms()[0], 0.1);
  EXPECT_DOUBLE_EQ(samples.frame_ms()[1], 0.1);
  EXPECT_FALSE(r->network.Find("ProfilerStep#5"));
  EXPECT_FALSE(r->network.Find("c"));
  EXPECT_DOUBLE_EQ(Value(*r, "a", 5), 0.010);
  EXPECT_DOUBLE_EQ(Value(*r, "a", 6), 0.020);
  EXPECT_TRUE(std::isnan(Value(*r, "b", 5)));  // did not cook: missing, not zero
  EXPECT_EQ(Value(*r, "b", 5, Metric::kCooks), 0);
  EXPECT_DOUBLE_EQ(Value(*r, "b", 6), 0.010);  // another thread, by time
  EXPECT_EQ(WarningWith(*r, "outside"),
            "1 slice(s) lie outside every step (ProfilerStep#N) and were left out (first: 'c', "
            "traceEvents[10])");
}

TEST(ChromeTraceFrames, ALargeTracesSlicesOutsideTheStepsAreCountedInFileOrder) {
  // 70,000 slices, numbered on two cores: slices outside both steps are in
  // either half, and the first named is the first in the file.
  std::string text = R"([
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "tid": 1, "ts": 1000, "dur": 34000},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "tid": 1, "ts": 35000, "dur": 34000})";
  const int kSlices = 70000;
  for (int i = 0; i < kSlices; ++i) {
    const int ts = (i + 69500) % kSlices;
    text += ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i % 7) +
            "\", \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": 1}";
  }
  text += "]";
  auto r = ParseTrace(text);
  ASSERT_TRUE(r) << ErrorOf(r);
  // Outside: ts 69500..69999 and 0..999 (events 2..1501), 69000..69499
  // (events 69502..70001).
  EXPECT_EQ(WarningWith(*r, "outside"),
            "2000 slice(s) lie outside every step (ProfilerStep#N) and were left out (first: "
            "'op0', traceEvents[2])");
}

TEST(ChromeTraceFrames, LaunchedGpuWorkBelongsToItsLaunchersFrame) {
  auto r = ParseTrace(kSteps);
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.node(*r->network.Find("k")).family, "kernel");
  EXPECT_TRUE(HasEdge(*r, "cudaLaunchKernel", "k", EdgeKind::kLaunch));
  // Launched in step 5, though it ran in step 6's time; the unlaunched one by time.
  EXPECT_DOUBLE_EQ(Value(*r, "k", 5), 0.010);
  EXPECT_DOUBLE_EQ(Value(*r, "k", 5, Metric::kGpuMs), 0.010);
  EXPECT_DOUBLE_EQ(Value(*r, "k", 6), 0.010);
  EXPECT_TRUE(std::isnan(Value(*r, "a", 5, Metric::kGpuMs)));
}

TEST(ChromeTraceFrames, AUserRegexPicksTheMarkersAndItsGroupNumbersThem) {
  const std::string text = R"([
    {"ph": "X", "name": "ProfilerStep#1", "ts": 0, "dur": 20},
    {"ph": "X", "name": "iter 7", "ts": 0, "dur": 10},
    {"ph": "X", "name": "iter 8", "ts": 10, "dur": 10},
    {"ph": "X", "name": "work", "ts": 2, "dur": 2},
    {"ph": "X", "name": "work", "ts": 12, "dur": 5}])";
  auto numbered = ParseTrace(text, "^iter (\\d+)$");
  ASSERT_TRUE(numbered) << ErrorOf(numbered);
  EXPECT_EQ(numbered->samples.frame_index(), (std::vector<int64_t>{7, 8}));
  EXPECT_DOUBLE_EQ(Value(*numbered, "work", 7), 0.002);
  EXPECT_DOUBLE_EQ(Value(*numbered, "work", 8), 0.005);
  EXPECT_TRUE(numbered->network.Find("ProfilerStep#1"));  // not a marker now: a node
  EXPECT_FALSE(numbered->network.Find("iter 7"));

  auto ordinal = ParseTrace(text, "^iter");
  ASSERT_TRUE(ordinal) << ErrorOf(ordinal);
  EXPECT_EQ(ordinal->samples.frame_index(), (std::vector<int64_t>{0, 1}));

  auto none = ParseTrace(text, "^epoch");
  ASSERT_TRUE(none) << ErrorOf(none);
  EXPECT_EQ(none->samples.frame_count(), 1u);
  EXPECT_EQ(WarningWith(*none, "--frame-marker"),
            "no event name matches --frame-marker '^epoch': the whole trace is one frame");

  auto bad = ParseTrace(text, "(");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("frame marker '(' is not a valid regular expression: ", 0),
            0u)
      << ErrorOf(bad);
}

TEST(ChromeTraceFrames, MarkersThatOverlapOrRepeatNumbersAreReported) {
  auto overlap = ParseTrace(R"([
    {"ph": "X", "name": "ProfilerStep#1", "ts": 0, "dur": 100},
    {"ph": "X", "name": "ProfilerStep#2", "ts": 50, "dur": 100},
    {"ph": "X", "name": "op", "ts": 60, "dur": 10}])");
  ASSERT_TRUE(overlap) << ErrorOf(overlap);
  EXPECT_EQ(overlap->samples.frame_index(), (std::vector<int64_t>{1}));
  EXPECT_EQ(WarningWith(*overlap, "frame marker"),
            "1 frame marker(s) start inside an earlier one and were ignored (first: "
            "'ProfilerStep#2', traceEvents[1])");
  auto repeated = ParseTrace(R"([
    {"ph": "X", "name": "iter 1", "ts": 0, "dur": 10},
    {"ph": "X", "name": "iter 1", "ts": 10, "dur": 10},
    {"ph": "X", "name": "op", "ts": 12, "dur": 1}])",
                             "iter (\\d+)");
  ASSERT_TRUE(repeated) << ErrorOf(repeated);
  EXPECT_EQ(repeated->samples.frame_index(), (std::vector<int64_t>{0, 1}));
  EXPECT_NE(WarningWith(*repeated, "distinct numbers"), "");
}

TEST(ChromeTraceFrames, WithoutAMarkerTheWholeTraceIsOneFrame) {
  auto r = ParseTrace(R"([{"ph": "X", "name": "a", "ts": 1000, "dur": 5},
                          {"ph": "X", "name": "b", "tid": 2, "ts": 1003, "dur": 9}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->samples.frame_index(), (std::vector<int64_t>{0}));
  EXPECT_DOUBLE_EQ(r->samples.frame_ms()[0], 0.012);  // 1012 - 1000
  EXPECT_EQ(r->warnings, (std::vector<std::string>{
                             "no frame marker in the trace (ProfilerStep#N or model_run): the "
                             "whole trace is one frame"}));
}

TEST(ChromeTraceOutputs, TopLevelSinksAreOutputsAndNothingThatRanIsDead) {
  // Thread 1: A holds B, which holds the launch R of kernel K. Thread 2: C
  // starts a flow into D on thread 3.
  auto r = ParseTrace(R"([
    {"ph": "X", "cat": "cpu_op", "name": "A", "tid": 1, "ts": 0, "dur": 35},
    {"ph": "X", "cat": "cpu_op", "name": "B", "tid": 1, "ts": 10, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "R", "tid": 1, "ts": 12, "dur": 2},
    {"ph": "s", "cat": "ac2g", "id": 1, "tid": 1, "ts": 12},
    {"ph": "X", "cat": "kernel", "name": "K", "pid": 0, "tid": 7, "ts": 40, "dur": 30},
    {"ph": "f", "cat": "ac2g", "id": 1, "pid": 0, "tid": 7, "ts": 40, "bp": "e"},
    {"ph": "X", "cat": "cpu_op", "name": "C", "tid": 2, "ts": 0, "dur": 20},
    {"ph": "s", "cat": "user_flow", "id": 2, "tid": 2, "ts": 19},
    {"ph": "X", "cat": "cpu_op", "name": "D", "tid": 3, "ts": 60, "dur": 10},
    {"ph": "f", "cat": "user_flow", "id": 2, "tid": 3, "ts": 60, "bp": "e"}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(IsOutput(*r, "A"));
  EXPECT_FALSE(IsOutput(*r, "B"));  // nested
  EXPECT_FALSE(IsOutput(*r, "R"));
  EXPECT_FALSE(IsOutput(*r, "K"));  // launched
  EXPECT_FALSE(IsOutput(*r, "C"));  // feeds D through a flow
  EXPECT_TRUE(IsOutput(*r, "D"));
  EXPECT_TRUE(HasEdge(*r, "R", "K", EdgeKind::kLaunch));
  EXPECT_TRUE(HasEdge(*r, "C", "D", EdgeKind::kFlow));
  const Analysis analysis = Analyse(*r);
  for (NodeIndex n = 0; n < r->network.size(); ++n) {
    EXPECT_FALSE(analysis.dead[n]) << r->network.node(n).id;
  }
  // The GPU kernel ranks by its time like the ops do: its 30 µs beat C's 20
  // and A's 35 - 20 = 15.
  EXPECT_EQ(r->network.node(Rank(analysis, SortKey::kScore).front()).id, "K");
}


TEST(ChromeTraceFlows, ForwardToBackwardIsItsOwnKindAndClosesNoLoop) {
  // aten::view's forward call links to its backward (a fwdbwd flow), and the
  // backward calls another aten::view: merged by name, that was a "loop" of
  // call and flow edges that never existed.
  auto r = ParseTrace(R"([
    {"ph": "X", "cat": "cpu_op", "name": "aten::view", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "s", "cat": "fwdbwd", "id": 5, "tid": 1, "ts": 0},
    {"ph": "X", "cat": "cpu_op", "name": "ViewBackward0", "tid": 2, "ts": 100, "dur": 30},
    {"ph": "f", "cat": "fwdbwd", "id": 5, "tid": 2, "ts": 100, "bp": "e"},
    {"ph": "X", "cat": "cpu_op", "name": "aten::view", "tid": 2, "ts": 105, "dur": 10}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(HasEdge(*r, "aten::view", "ViewBackward0", EdgeKind::kFwdBwd));
  EXPECT_TRUE(HasEdge(*r, "ViewBackward0", "aten::view", EdgeKind::kCall));
  EXPECT_FALSE(HasEdge(*r, "aten::view", "ViewBackward0", EdgeKind::kFlow));
  const Analysis analysis = Analyse(*r);
  EXPECT_TRUE(analysis.loops.empty());
  for (NodeIndex n = 0; n < r->network.size(); ++n) {
    EXPECT_FALSE(analysis.dead[n]) << r->network.node(n).id;
  }
}

TEST(ChromeTraceStreams, KernelsThatOverlapOnAStreamDoNotNest) {
  // The clock puts the second kernel 1 µs inside the first: no call edge, and
  // each kernel's time is its own duration.
  auto r = ParseTrace(R"([
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 0, "dur": 10},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 9, "dur": 10},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 18, "dur": 10}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_FALSE(HasEdge(*r, "k1", "k2", EdgeKind::kCall));
  EXPECT_FALSE(HasEdge(*r, "k2", "k1", EdgeKind::kCall));
  EXPECT_DOUBLE_EQ(r->samples.series(*r->network.Find("k1"), Metric::kCookMs)[0], 0.020);
  EXPECT_DOUBLE_EQ(r->samples.series(*r->network.Find("k2"), Metric::kCookMs)[0], 0.010);
  EXPECT_TRUE(Analyse(*r).loops.empty());
}

}  // namespace
}  // namespace cookgraph
