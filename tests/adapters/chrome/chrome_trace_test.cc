// The Chrome trace adapter on small hand-written traces: the shapes of the
// file, times, threads, B/E pairing, nesting, and the errors a user can cause.
// Every expected number is worked out in the comment beside it.

#include "adapters/chrome/chrome_trace.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "adapters/chrome/records.h"
#include "tests/adapters/chrome/chrome_trace_test.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

using namespace testing;  // the helpers of tests/adapters/chrome/chrome_trace_test.h

// a [0, 10) µs holds b [2, 5): a's self time is 10 - 3 = 7 µs.
const std::string kEvents = R"(
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 3})";

void ExpectNested(const Snapshot& s, const std::string& engine = "chrome-trace") {
  EXPECT_EQ(s.info.engine, engine);
  ASSERT_EQ(s.network.size(), 2u);
  EXPECT_DOUBLE_EQ(Value(s, "a", 0), 0.007);
  EXPECT_DOUBLE_EQ(Value(s, "b", 0), 0.003);
  EXPECT_EQ(Value(s, "a", 0, Metric::kCooks), 1);
  EXPECT_TRUE(HasEdge(s, "a", "b", EdgeKind::kCall));
  ASSERT_EQ(s.samples.frame_count(), 1u);
  EXPECT_DOUBLE_EQ(s.samples.frame_ms()[0], 0.010);  // first start to last end
}

TEST(ChromeTrace, ObjectAndArrayFormsReadAlike) {
  auto object = ParseTrace(std::string(R"({"traceEvents": [)") + kEvents +
                           R"(], "displayTimeUnit": "ns", "otherData": {"x": [1, {"ph": 2}]}})");
  ASSERT_TRUE(object) << ErrorOf(object);
  ExpectNested(*object);
  auto array = ParseTrace(std::string("[") + kEvents + "]");
  ASSERT_TRUE(array) << ErrorOf(array);
  ExpectNested(*array);
}

TEST(ChromeTrace, KeysAfterTraceEventsAreNotEvents) {
  // Kineto writes "traceName" and a list of "INFO" strings after the events
  // (and its keys tell the producer).
  auto r = ParseTrace(std::string(R"({"traceEvents": [)") + kEvents +
                      R"(], "INFO": ["a line", {"ph": "X"}], "traceName": "x.json"})");
  ASSERT_TRUE(r) << ErrorOf(r);
  ExpectNested(*r, "pytorch");
}

TEST(ChromeTrace, AnArrayWithoutItsClosingBracketIsComplete) {
  for (std::string tail : {"", ",", ",\n  "}) {
    auto r = ParseTrace(std::string("[") + kEvents + tail);
    ASSERT_TRUE(r) << "tail '" << tail << "': " << ErrorOf(r);
    ExpectNested(*r);
    EXPECT_NE(WarningWith(*r, "no closing bracket"), "");
  }
}

TEST(ChromeTrace, InputCutInsideAnEventIsAnError) {
  auto r = ParseTrace(std::string("[") + kEvents + ",\n  {\"ph\": \"X\", \"na");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "t.json");
  EXPECT_EQ(r.error().line, 4);
  EXPECT_EQ(r.error().where, "traceEvents[2]");
  EXPECT_NE(r.error().message.find("the input ends inside this event"), std::string::npos)
      << ErrorOf(r);
}

TEST(ChromeTrace, AnObjectCutShortIsAnError) {
  // Only the bare array may lose its end.
  auto r = ParseTrace(std::string(R"({"traceEvents": [)") + kEvents);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("the input ends early"), std::string::npos) << ErrorOf(r);
}

TEST(ChromeTrace, NotJsonIsAnErrorWithItsPlace) {
  auto r = ParseTrace("[\n  {\"ph\": \"X\",, }]");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().line, 2);
  EXPECT_GT(r.error().column, 0);
  EXPECT_NE(r.error().message.find("invalid JSON"), std::string::npos) << ErrorOf(r);
}

TEST(ChromeTrace, AWrongTopLevelIsAnError) {
  EXPECT_EQ(ErrorOf(ParseTrace("42")),
            "t.json:1:1: not a Chrome trace: the input is a number, not an array of events or an "
            "object with \"traceEvents\"");
  EXPECT_NE(ErrorOf(ParseTrace(R"({"cookgraph": 1, "nodes": []})"))
                .find("not a Chrome trace: the object has no \"traceEvents\" array"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(ParseTrace(R"({"traceEvents": {}})")),
            "t.json:1:18: traceEvents: is an object, not an array of events");
  EXPECT_EQ(ErrorOf(ParseTrace(R"({"traceEvents": "none"})")),
            "t.json:1:23: traceEvents: is a string, not an array of events");
  EXPECT_EQ(ErrorOf(ParseTrace("[1]")),
            "t.json:1:2: traceEvents[0]: is a number, not an event object");
  EXPECT_EQ(ErrorOf(ParseTrace(R"([{"ph": "X"}, []])")),
            "t.json:1:16: traceEvents[1]: is an array, not an event object");
}

TEST(ChromeTrace, ANonNumericTimeIsAnError) {
  auto r = ParseTrace("[\n{\"ph\": \"X\", \"name\": \"a\", \"ts\": \"soon\", \"dur\": 1}]");
  EXPECT_EQ(ErrorOf(r),
            "t.json:2:38: traceEvents[0]: ts is \"soon\", not a number of microseconds");
  EXPECT_EQ(ErrorOf(ParseTrace(R"([{"ph": "X", "ts": 1, "dur": null}])")),
            "t.json:1:34: traceEvents[0]: dur is null, not a number of microseconds");
  EXPECT_EQ(ErrorOf(ParseTrace(R"([{"ph": "X", "ts": [1], "dur": 1}])")),
            "t.json:1:21: traceEvents[0]: ts is an array, not a number of microseconds");
  // A number spelled as a string is a number (Perfetto reads it too).
  auto text = ParseTrace(R"([{"ph": "X", "name": "a", "ts": "5", "dur": "2.5"}])");
  ASSERT_TRUE(text) << ErrorOf(text);
  EXPECT_DOUBLE_EQ(Value(*text, "a", 0), 0.0025);
}

TEST(ChromeTrace, AbsurdTimesAreErrors) {
  EXPECT_EQ(ErrorOf(ParseTrace(R"([{"ph": "X", "name": "a", "ts": 0, "dur": 2e12}])")),
            "t.json:1:43: traceEvents[0]: dur 2e12 µs is over 1e12 µs (11.6 days): not a slice's "
            "duration");
  // Nanoseconds since 1970 written as µs: past any clock.
  EXPECT_EQ(
      ErrorOf(ParseTrace(R"([{"ph": "X", "name": "a", "ts": 1700000000000000000, "dur": 1}])")),
      "t.json:1:33: traceEvents[0]: ts 1700000000000000000 is past any clock in "
      "microseconds (ns written as µs?)");
  // 1e12 µs itself is a duration, and so is a ts of 1.2e12 (Kineto's relative clock).
  auto edge = ParseTrace(R"([{"ph": "X", "name": "a", "ts": 1212075525586.016, "dur": 1e12}])");
  ASSERT_TRUE(edge) << ErrorOf(edge);
  EXPECT_DOUBLE_EQ(Value(*edge, "a", 0), 1e9);
}

TEST(ChromeTrace, MicrosecondsBecomeExactNanoseconds) {
  using chrome::MicrosToNanos;
  EXPECT_EQ(MicrosToNanos("15"), 15000);
  EXPECT_EQ(MicrosToNanos("1.5"), 1500);
  EXPECT_EQ(MicrosToNanos("-3"), -3000);
  EXPECT_EQ(MicrosToNanos("1212075525586.016"), 1212075525586016);  // exact, unlike a double
  EXPECT_EQ(MicrosToNanos("0.0005"), 1);                            // the fourth decimal rounds
  EXPECT_EQ(MicrosToNanos("0.0004"), 0);
  EXPECT_EQ(MicrosToNanos("2.5e3"), 2500000);
  EXPECT_EQ(MicrosToNanos("9223372036854775"), std::nullopt);  // past int64 ns
  EXPECT_EQ(MicrosToNanos("9223372036854774"), 9223372036854774000);  // the largest
  EXPECT_EQ(MicrosToNanos("99999999999999999999"), std::nullopt);
  EXPECT_EQ(MicrosToNanos("000000000000000000001.5"), 1500);  // many digits, a small number
  EXPECT_EQ(MicrosToNanos("abc"), std::nullopt);
  EXPECT_EQ(MicrosToNanos(""), std::nullopt);
  EXPECT_EQ(MicrosToNanos("1.2.3"), std::nullopt);
}

TEST(ChromeTrace, FractionalMicrosecondsAreExact) {
  // a [1.5, 3.75) holds b [2.0005, 2.5005): a's self time is 2.25 - 0.5 = 1.75 µs.
  auto r = ParseTrace(R"([{"ph": "X", "name": "a", "ts": 1.5, "dur": 2.25},
                          {"ph": "X", "name": "b", "ts": 2.0005, "dur": 0.5}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_DOUBLE_EQ(Value(*r, "a", 0), 0.00175);
  EXPECT_DOUBLE_EQ(Value(*r, "b", 0), 0.0005);
}

TEST(ChromeTrace, ATrackIsAGpuStreamWhenItsFirstSliceInTheFileIs) {
  // Thread 7 of pid 0 holds a kernel, then (in the file; earlier in time) a
  // slice of no GPU category: its first slice in file order makes it a stream.
  auto r = ParseTrace(R"([
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5},
    {"ph": "X", "name": "x", "pid": 0, "tid": 7, "ts": 1, "dur": 2}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  ASSERT_EQ(r->timelines.size(), 1u);
  const Timeline& t = r->timelines[0];
  ASSERT_EQ(t.tracks.size(), 2u);
  EXPECT_FALSE(t.tracks[0].gpu);  // CPU threads first
  EXPECT_TRUE(t.tracks[1].gpu);
  EXPECT_EQ(t.tracks[1].label, "GPU 0 stream 7");
}

TEST(ChromeTrace, UnsortedEventsGiveTheSameSnapshot) {
  // The same slices in two orders: children before their parents, threads mixed.
  const std::string sorted = R"([
    {"ph": "X", "name": "a", "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "name": "b", "tid": 1, "ts": 10, "dur": 30},
    {"ph": "X", "name": "c", "tid": 1, "ts": 20, "dur": 10},
    {"ph": "X", "name": "d", "tid": 2, "ts": 5, "dur": 50}])";
  const std::string shuffled = R"([
    {"ph": "X", "name": "c", "tid": 1, "ts": 20, "dur": 10},
    {"ph": "X", "name": "d", "tid": 2, "ts": 5, "dur": 50},
    {"ph": "X", "name": "b", "tid": 1, "ts": 10, "dur": 30},
    {"ph": "X", "name": "a", "tid": 1, "ts": 0, "dur": 100}])";
  for (const std::string& text : {sorted, shuffled}) {
    auto r = ParseTrace(text);
    ASSERT_TRUE(r) << ErrorOf(r);
    EXPECT_DOUBLE_EQ(Value(*r, "a", 0), 0.070);  // 100 - 30
    EXPECT_DOUBLE_EQ(Value(*r, "b", 0), 0.020);  // 30 - 10
    EXPECT_DOUBLE_EQ(Value(*r, "c", 0), 0.010);
    EXPECT_DOUBLE_EQ(Value(*r, "d", 0), 0.050);  // another thread: nests in nothing
    EXPECT_TRUE(HasEdge(*r, "a", "b", EdgeKind::kCall));
    EXPECT_TRUE(HasEdge(*r, "b", "c", EdgeKind::kCall));
    EXPECT_EQ(CountEdges(*r, EdgeKind::kCall), 2u);
    // Nodes are numbered in the order they first ran.
    EXPECT_EQ(r->network.node(0).id, "a");
    EXPECT_EQ(r->network.node(1).id, "d");
  }
}

// Random slices on five threads, on a clock of whole µs so that many start
// together, in a shuffled file, with a step marker around them all on thread
// 1 in the middle of the file (on the timeline, not a node): small (one core)
// and past kParallelTraceItems (the sorts and builders on two). Worked out
// here from the definitions: each thread's slices by (start, end descending,
// file order) nest in the last one still open (ends are exclusive), the
// marker among them on the timeline only; a slice's self time is its
// duration less what its direct children cover of it; nodes are numbered by
// their first slice by (start, file order).
TEST(ChromeTrace, EqualStartsNestOuterFirstAndNumberNodesInFileOrder) {
  for (const int count : {300, 40000}) {
    std::mt19937 random(static_cast<uint32_t>(count));
    struct Spec {
      int64_t start, end;
      int tid;
      std::string name;
    };
    std::vector<Spec> specs;
    const uint32_t marker = count / 2;
    std::string text = "[";
    for (int i = 0; i <= count; ++i) {
      const int64_t start = i == static_cast<int>(marker) ? 0 : 1 + random() % (count / 4);
      const int64_t dur = i == static_cast<int>(marker) ? count / 4 + 100
                          : random() % 4 == 0           ? 0
                                                        : random() % 40;
      specs.push_back({start, start + dur,
                       i == static_cast<int>(marker) ? 1 : 1 + static_cast<int>(random() % 5),
                       i == static_cast<int>(marker) ? "ProfilerStep#1"
                                                     : "op" + std::to_string(random() % 60)});
      text += fmt::format(R"({}{{"ph": "X", "name": "{}", "tid": {}, "ts": {}, "dur": {}}})",
                          i == 0 ? "" : ",\n", specs.back().name, specs.back().tid, start, dur);
    }
    text += "]";
    std::vector<uint32_t> order(specs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Spec &x = specs[a], &y = specs[b];
      return std::tie(x.tid, x.start, y.end, a) < std::tie(y.tid, y.start, x.end, b);
    });
    // Each slice's parent, with or without the marker; self times without it.
    std::vector<int64_t> self(specs.size());
    auto nest = [&](bool with_marker) {
      std::vector<int64_t> parent(specs.size(), -1);
      std::vector<uint32_t> stack;
      for (size_t k = 0; k < order.size(); ++k) {
        const uint32_t i = order[k];
        if (k == 0 || specs[order[k - 1]].tid != specs[i].tid) stack.clear();
        if (i == marker && !with_marker) continue;
        while (!stack.empty() && specs[stack.back()].end <= specs[i].start) stack.pop_back();
        if (!with_marker) self[i] += specs[i].end - specs[i].start;
        if (!stack.empty()) {
          parent[i] = stack.back();
          if (!with_marker) {
            self[stack.back()] -= std::min(specs[i].end, specs[stack.back()].end) - specs[i].start;
          }
        }
        stack.push_back(i);
      }
      return parent;
    };
    nest(false);
    const std::vector<int64_t> parent = nest(true);
    std::map<std::string, int64_t> self_of;
    std::vector<std::pair<int64_t, uint32_t>> by_start;
    for (uint32_t i = 0; i < specs.size(); ++i) {
      if (i == marker) continue;
      self_of[specs[i].name] += std::max<int64_t>(self[i], 0) * 1000;  // ns
      by_start.emplace_back(specs[i].start, i);
    }
    std::sort(by_start.begin(), by_start.end());
    std::vector<std::string> first_ran;
    for (const auto& [start, i] : by_start) {
      if (std::find(first_ran.begin(), first_ran.end(), specs[i].name) == first_ran.end()) {
        first_ran.push_back(specs[i].name);
      }
    }

    auto r = ParseTrace(text);
    ASSERT_TRUE(r) << ErrorOf(r);
    ASSERT_EQ(r->network.size(), first_ran.size());
    for (uint32_t n = 0; n < first_ran.size(); ++n) {
      EXPECT_EQ(r->network.node(n).id, first_ran[n]) << count << " slices, node " << n;
      // Frame 1: the step's number.
      EXPECT_DOUBLE_EQ(Value(*r, first_ran[n], 1), static_cast<double>(self_of[first_ran[n]]) / 1e6)
          << first_ran[n];
    }
    ASSERT_EQ(r->timelines.size(), 1u);
    const Timeline& t = r->timelines[0];
    ASSERT_EQ(t.events.size(), specs.size());
    size_t checked = 0;
    for (uint32_t e = 0; e < t.events.size(); ++e) {
      const TimelineEvent& event = t.events[e];
      ASSERT_EQ(event.source, order[e]) << "event " << e;  // the threads' orders, tid by tid
      const int64_t expected = parent[event.source];
      EXPECT_EQ(event.parent == kNoIndex ? -1 : int64_t{t.events[event.parent].source}, expected)
          << "event " << e;
      checked += expected >= 0 && expected != marker;
    }
    EXPECT_EQ(t.events[0].source, marker);  // thread 1's first: it holds the others
    EXPECT_GT(checked, specs.size() / 4);  // a test of nesting, not of flat slices
  }
}

TEST(ChromeTrace, StringNegativeAndEmptyPidsAndTidsAreThreads) {
  // pid 7 with tid "7" and tid 7 are one thread; "" and -1 are threads of their own.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "outer", "pid": 7, "tid": "7", "ts": 0, "dur": 10},
    {"ph": "X", "name": "inner", "pid": 7, "tid": 7, "ts": 1, "dur": 2},
    {"ph": "X", "name": "empty", "pid": "", "tid": "", "ts": 0, "dur": 10},
    {"ph": "X", "name": "negative", "pid": -1, "tid": -1, "ts": 1, "dur": 2},
    {"ph": "X", "name": "no_tid", "pid": "gpu", "ts": 0, "dur": 10},
    {"ph": "X", "name": "same_as_pid", "pid": "gpu", "tid": "gpu", "ts": 4, "dur": 1}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(HasEdge(*r, "outer", "inner", EdgeKind::kCall));
  EXPECT_TRUE(HasEdge(*r, "no_tid", "same_as_pid", EdgeKind::kCall));  // a missing tid is the pid
  EXPECT_EQ(CountEdges(*r, EdgeKind::kCall), 2u);
  EXPECT_DOUBLE_EQ(Value(*r, "empty", 0), 0.010);
  EXPECT_DOUBLE_EQ(Value(*r, "negative", 0), 0.002);
}

TEST(ChromeTrace, BeginEndPairPerThreadAndUnmatchedOnesAreWarnings) {
  // Thread 1: B a 0, B b 2, E 5 (closes b), E 9 (closes a): a [0, 9) holds b [2, 5).
  // Thread 2: an E with nothing open, then a B never closed.
  // Thread 3 begins x and thread 4 ends it: no pair across threads.
  auto r = ParseTrace(R"([
    {"ph": "E", "tid": 1, "ts": 9},
    {"ph": "B", "name": "a", "tid": 1, "ts": 0},
    {"ph": "B", "name": "b", "tid": 1, "ts": 2},
    {"ph": "E", "tid": 1, "ts": 5},
    {"ph": "E", "tid": 2, "ts": 3},
    {"ph": "B", "name": "c", "tid": 2, "ts": 4},
    {"ph": "B", "name": "x", "tid": 3, "ts": 1},
    {"ph": "E", "tid": 4, "ts": 8}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.size(), 2u);
  EXPECT_DOUBLE_EQ(Value(*r, "a", 0), 0.006);  // 9 - 3
  EXPECT_DOUBLE_EQ(Value(*r, "b", 0), 0.003);
  EXPECT_TRUE(HasEdge(*r, "a", "b", EdgeKind::kCall));
  EXPECT_EQ(WarningWith(*r, "E event(s)"),
            "2 E event(s) close no open B on their thread and were ignored (first: "
            "traceEvents[4])");
  EXPECT_EQ(WarningWith(*r, "B event(s)"),
            "2 B event(s) are never closed by an E on their thread and were ignored (first: "
            "'c', traceEvents[5])");
}

TEST(ChromeTrace, NestingGivesCallEdgesAndSelfTime) {
  // a [0, 100) holds b [10, 40) (which holds c [20, 30)), d [50, 60) and b [70, 80).
  // e [200, 210) holds e [201, 205): a node nested in itself adds no edge.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "a", "ts": 0, "dur": 100},
    {"ph": "X", "name": "b", "ts": 10, "dur": 30},
    {"ph": "X", "name": "c", "ts": 20, "dur": 10},
    {"ph": "X", "name": "d", "ts": 50, "dur": 10},
    {"ph": "X", "name": "b", "ts": 70, "dur": 10},
    {"ph": "X", "name": "e", "ts": 200, "dur": 10},
    {"ph": "X", "name": "e", "ts": 201, "dur": 4}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_DOUBLE_EQ(Value(*r, "a", 0), 0.050);  // 100 - 30 - 10 - 10
  EXPECT_DOUBLE_EQ(Value(*r, "b", 0), 0.030);  // (30 - 10) + 10
  EXPECT_EQ(Value(*r, "b", 0, Metric::kCooks), 2);
  EXPECT_DOUBLE_EQ(Value(*r, "e", 0), 0.010);  // (10 - 4) + 4
  EXPECT_TRUE(HasEdge(*r, "a", "b", EdgeKind::kCall));
  EXPECT_TRUE(HasEdge(*r, "b", "c", EdgeKind::kCall));
  EXPECT_TRUE(HasEdge(*r, "a", "d", EdgeKind::kCall));
  EXPECT_EQ(r->network.edges().size(), 3u);
  EXPECT_TRUE(r->network.Find("e").has_value());
}

// PyTorch's backward pass runs on the autograd thread while the forward thread
// waits in `## backward ##` (the threads found as HTA's critical path finds
// them): the wait is not the annotation's self time. Forward thread 1:
// `## forward ##` [0, 40) holding aten::linear [5, 35); `## backward ##`
// [50, 200) holding aten::ones_like [55, 60). Autograd thread 2: two ops at
// [70, 90) and [120, 150), then an op at [300, 310) outside both. The pass as
// seen from `## backward ##` is [70, 150): 80 µs of its 145 µs of own time.
TEST(ChromeTrace, TheForwardThreadsWaitForTheAutogradThreadIsNotSelfTime) {
  auto r = ParseTrace(R"([
    {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1, "tid": 1, "ts": 0, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 5, "dur": 30},
    {"ph": "X", "cat": "user_annotation", "name": "## backward ##", "pid": 1, "tid": 1, "ts": 50, "dur": 150},
    {"ph": "X", "cat": "cpu_op", "name": "aten::ones_like", "pid": 1, "tid": 1, "ts": 55, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 2, "ts": 70, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MeanBackward0", "pid": 1, "tid": 2, "ts": 120, "dur": 30},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: SumBackward0", "pid": 1, "tid": 2, "ts": 300, "dur": 10}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_DOUBLE_EQ(Value(*r, "## backward ##", 0), 0.065);  // 150 - 5 - 80
  EXPECT_DOUBLE_EQ(Value(*r, "aten::ones_like", 0), 0.005);
  EXPECT_DOUBLE_EQ(Value(*r, "## forward ##", 0), 0.010);  // no autograd work in it
  EXPECT_DOUBLE_EQ(Value(*r, "autograd::engine::evaluate_function: MeanBackward0", 0), 0.030);
  // Without a thread that runs "forward" work, the threads are not told
  // apart, and nothing changes.
  auto plain = ParseTrace(R"([
    {"ph": "X", "cat": "user_annotation", "name": "## backward ##", "pid": 1, "tid": 1, "ts": 50, "dur": 150},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 2, "ts": 70, "dur": 20}])");
  ASSERT_TRUE(plain) << ErrorOf(plain);
  EXPECT_DOUBLE_EQ(Value(*plain, "## backward ##", 0), 0.150);
}

TEST(ChromeTrace, ASliceOutlivingItsParentCountsOnlyWhereTheyOverlap) {
  // b [5, 15) starts inside a [0, 10) and ends after it: a's self time is 10 - 5.
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "a", "ts": 0, "dur": 10},
    {"ph": "X", "name": "b", "ts": 5, "dur": 10}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_DOUBLE_EQ(Value(*r, "a", 0), 0.005);
  EXPECT_DOUBLE_EQ(Value(*r, "b", 0), 0.010);
  EXPECT_EQ(WarningWith(*r, "end after it"),
            "1 slice(s) start inside another slice of their thread and end after it; only the "
            "overlap counts as nested (first: 'b', traceEvents[1])");
}

TEST(ChromeTrace, SlicesThatTouchDoNotNest) {
  // [0, 5) then [5, 8) and a zero-length slice at 8: spans are [start, end).
  auto r = ParseTrace(R"([
    {"ph": "X", "name": "a", "ts": 0, "dur": 5},
    {"ph": "X", "name": "b", "ts": 5, "dur": 3},
    {"ph": "X", "name": "z", "ts": 8, "dur": 0}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_TRUE(r->network.edges().empty());
  EXPECT_DOUBLE_EQ(Value(*r, "z", 0), 0.0);
  EXPECT_EQ(Value(*r, "z", 0, Metric::kCooks), 1);
}

TEST(ChromeTrace, BadRecordsAreCountedAndSkipped) {
  auto r = ParseTrace(R"([
    {"name": "no phase", "ts": 0, "dur": 1},
    {"ph": "X", "name": "no ts", "dur": 1},
    {"ph": "X", "name": "no dur", "ts": 0},
    {"ph": "X", "name": "negative", "ts": 0, "dur": -1},
    {"ph": "s", "cat": "c", "ts": 0},
    {"ph": "b", "cat": "c", "id": 1, "name": "async", "ts": 0},
    {"ph": "i", "name": "instant", "ts": 0},
    {"ph": "C", "name": "counter", "ts": 0, "args": {"v": 1}},
    {"ph": "M", "name": "thread_name", "args": {"name": "main"}},
    {"ph": "X", "name": "good", "ts": 0, "dur": 1}])");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.size(), 1u);
  EXPECT_EQ(WarningWith(*r, "\"ph\""),
            "1 event(s) without \"ph\" were ignored (first: traceEvents[0] at line 2)");
  EXPECT_NE(WarningWith(*r, "1 slice or flow event(s) without \"ts\""), "");
  EXPECT_NE(WarningWith(*r, "1 X event(s) without \"dur\""), "");
  EXPECT_NE(WarningWith(*r, "1 X event(s) with a negative dur"), "");
  EXPECT_NE(WarningWith(*r, "1 flow event(s) without \"id\""), "");
  EXPECT_NE(WarningWith(*r, "1 async event(s)"), "");
}

TEST(ChromeTrace, ATraceWithoutSlicesIsAnError) {
  EXPECT_EQ(ErrorOf(ParseTrace("[]")),
            "t.json: no slices to profile: the trace has no X events or B/E pairs");
  EXPECT_EQ(ErrorOf(ParseTrace("[")),
            "t.json: no slices to profile: the trace has no X events or B/E pairs");
}

TEST(ChromeTrace, ReadsAGzipFileCutAfterAnEvent) {
  // tests/data/chrome/cut_short.json.gz: a bare array without its closing
  // bracket (tests/data/chrome/README.md): main [0, 40) holds step [5, 25).
  const std::string path = COOKGRAPH_SOURCE_DIR "/tests/data/chrome/cut_short.json.gz";
  auto r = ReadChromeTraceFile(path, {});
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->info.source, std::vector<std::string>{"cut_short.json.gz"});
  EXPECT_EQ(r->info.name, "cut_short");
  EXPECT_DOUBLE_EQ(Value(*r, "main", 0), 0.020);  // 40 - 20
  EXPECT_DOUBLE_EQ(Value(*r, "step", 0), 0.020);
  EXPECT_NE(WarningWith(*r, "no closing bracket"), "");
}

TEST(ChromeTrace, AnEmptyOrMissingFileIsAnError) {
  testing::TempDir dir;
  const std::string empty = dir / "empty.json";
  std::FILE* f = std::fopen(empty.c_str(), "w");
  std::fputs("  \n", f);
  std::fclose(f);
  EXPECT_EQ(ReadChromeTraceFile(empty, {}).error().Format(), empty + ": the file is empty");
  auto missing = ReadChromeTraceFile(dir / "missing.json", {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
}

TEST(ChromeTrace, LooksLikeChromeTraceFromTheFirstBytes) {
  EXPECT_TRUE(LooksLikeChromeTrace(R"([{"ph": "X", "name": "a"})"));
  EXPECT_TRUE(LooksLikeChromeTrace("\xEF\xBB\xBF\n [ \n{\"name\": \"a\", \"ph\":\"B\""));
  EXPECT_TRUE(LooksLikeChromeTrace(R"({"traceEvents": [{"ph": "X"}]})"));
  EXPECT_TRUE(LooksLikeChromeTrace(R"({"displayTimeUnit": "ns", "traceEvents" : [)"));
  EXPECT_TRUE(LooksLikeChromeTrace("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": ["));
  EXPECT_FALSE(LooksLikeChromeTrace(R"({"cookgraph": 1, "nodes": [{"id": "traceEvents"}]})"));
  EXPECT_FALSE(LooksLikeChromeTrace(R"({"name": "x", "params": {"traceEvents": "[1]"}})"));
  EXPECT_FALSE(LooksLikeChromeTrace("[1, 2, 3]"));
  EXPECT_FALSE(LooksLikeChromeTrace("[]"));
  EXPECT_FALSE(LooksLikeChromeTrace("cookgraph: 1\nnodes: []\n"));
  EXPECT_FALSE(LooksLikeChromeTrace(""));
}

}  // namespace
}  // namespace cookgraph
