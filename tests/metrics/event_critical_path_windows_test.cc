// ForEachEventCriticalPath (metrics/event_critical_path.h): many windows of one
// timeline in one pass give, field for field, what EventCriticalPath gives one
// window at a time. tests/critical_path.cmake checks the same on the real
// traces of tests/data/fixtures/traces (critical_path_dump --all-steps).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "graph/parallel.h"
#include "metrics/event_critical_path.h"
#include "tests/metrics/timeline_maker.h"

namespace cookgraph {
namespace {

using namespace testing_timeline;  // NOLINT: Spec, Make and the tracks

using ::testing::HasSubstr;

// Every field of a result, one line each.
std::vector<std::string> Dump(const Result<EventPath>& r) {
  if (!r) return {"error " + r.error().Format()};
  const EventPath& p = *r;
  std::vector<std::string> out = {
      "window " + std::to_string(p.window_start_ns) + " " + std::to_string(p.window_end_ns) +
      " events " + std::to_string(p.window_events) + " nodes " + std::to_string(p.nodes) +
      " clamped " + std::to_string(p.clamped) + " length " + std::to_string(p.length_ns)};
  for (const EventEdge& e : p.edges) {
    out.push_back(std::string(EventEdgeKindName(e.kind)) + " " + std::to_string(e.from) +
                  (e.from_end ? ":e " : ":b ") + std::to_string(e.to) + (e.to_end ? ":e " : ":b ") +
                  std::to_string(e.weight_ns) + " owner " +
                  (e.owner == kNoIndex ? std::string("-") : std::to_string(e.owner)));
  }
  for (uint32_t i : p.path) out.push_back("path " + std::to_string(i));
  for (uint32_t e : p.events) out.push_back("event " + std::to_string(e));
  for (const std::string& w : p.warnings) out.push_back("warning " + w);
  return out;
}

EventPathOptions Window(std::string annotation, size_t instance,
                        std::optional<size_t> last = std::nullopt, bool zero = false) {
  return EventPathOptions{.annotation = std::move(annotation),
                          .instance = instance,
                          .last_instance = last,
                          .zero_weight_launch_edges = zero};
}

// The results of ForEachEventCriticalPath, each compared with EventCriticalPath's;
// returns them.
std::vector<Result<EventPath>> ExpectSameAsOneByOne(const Timeline& t,
                                                    const std::vector<EventPathOptions>& windows) {
  std::vector<size_t> seen;
  std::vector<Result<EventPath>> many;
  ForEachEventCriticalPath(t, windows, [&](size_t i, Result<EventPath> path) {
    seen.push_back(i);
    many.push_back(std::move(path));
  });
  EXPECT_EQ(seen.size(), windows.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], i);  // in order, each once
    EXPECT_EQ(Dump(many[i]), Dump(EventCriticalPath(t, windows[i])))
        << "window " << i << ": '" << windows[i].annotation << "' " << windows[i].instance;
  }
  // The vector form is the same again.
  const std::vector<Result<EventPath>> kept = EventCriticalPaths(t, windows);
  EXPECT_EQ(kept.size(), many.size());
  for (size_t i = 0; i < kept.size() && i < many.size(); ++i) {
    EXPECT_EQ(Dump(kept[i]), Dump(many[i])) << "window " << i;
  }
  return many;
}

// Steps of a training loop on one thread and two streams: operators each
// launching a kernel, kernels long enough to queue up and to run into the
// next steps, and in steps 2 to 5 of every five a cudaStreamWaitEvent on a
// recorded event, a cudaStreamSynchronize, a cudaEventSynchronize and a
// cudaDeviceSynchronize. With `synced_twice`, the last cudaEventSynchronize
// names stream 8 for an event stream 8 waits on for stream 7 (HTA fails).
Timeline TrainingSteps(int steps, bool synced_twice = false) {
  std::vector<Spec> specs;
  int64_t cpu = 0, end7 = 0, end8 = 0;
  uint32_t corr = 1, record = 0;
  auto launch = [&](uint32_t track, int64_t dur, std::string kernel) {
    specs.push_back({"cudaLaunchKernel", EventKind::kRuntime, kCpu, cpu + 10, 30, corr});
    int64_t& end = track == kStream7 ? end7 : end8;
    const int64_t start = std::max<int64_t>(cpu + 35 + (corr * 13) % 40, end + corr % 3 * 5);
    specs.push_back({std::move(kernel), EventKind::kKernel, track, start, dur, corr});
    end = start + dur;
    ++corr;
  };
  for (int s = 0; s < steps; ++s) {
    const size_t marker = specs.size();
    const int64_t step_start = cpu;
    specs.push_back({"ProfilerStep#" + std::to_string(s + 1), EventKind::kMarker, kCpu, cpu, 0});
    cpu += 20;
    for (int i = 0; i < 6; ++i) {
      specs.push_back({"aten::op" + std::to_string(i % 3), EventKind::kCpuOp, kCpu, cpu, 100});
      launch(i % 3 == 0 ? kStream8 : kStream7, 200 + (i * 97 + s * 31) % 900,
             "kernel" + std::to_string(i % 4));
      cpu += 150 + (i * 17) % 60;
    }
    int64_t until = 0;
    switch (s % 5) {
      case 1:  // stream 8 waits for an event recorded on stream 7
        record = corr;
        specs.push_back({"cudaEventRecord", EventKind::kRuntime, kCpu, cpu, 5, corr++});
        cpu += 10;
        specs.push_back({"cudaStreamWaitEvent", EventKind::kRuntime, kCpu, cpu, 5, corr});
        specs.push_back(
            {"Stream Wait Event", EventKind::kGpuSync, kStream8, cpu + 2, 1, corr++, 7, record});
        cpu += 10;
        specs.push_back({"aten::add", EventKind::kCpuOp, kCpu, cpu, 100});
        launch(kStream8, 150, "add");
        cpu += 150;
        break;
      case 2:
        until = std::max(end7, cpu + 10) + 5;
        specs.push_back(
            {"cudaStreamSynchronize", EventKind::kRuntime, kCpu, cpu, until - cpu, corr});
        specs.push_back({"Stream Sync", EventKind::kGpuSync, kStream7, cpu, until - cpu, corr++});
        cpu = until + 10;
        break;
      case 3:
        until = std::max(end7, cpu + 10) + 5;
        specs.push_back(
            {"cudaEventSynchronize", EventKind::kRuntime, kCpu, cpu, until - cpu, corr});
        specs.push_back({"Event Sync", EventKind::kGpuSync, kDevice, cpu, until - cpu, corr++,
                         synced_twice && s + 5 >= steps ? 8 : 7, record});
        cpu = until + 10;
        break;
      case 4:
        until = std::max({end7, end8, cpu + 10}) + 5;
        specs.push_back(
            {"cudaDeviceSynchronize", EventKind::kRuntime, kCpu, cpu, until - cpu, corr});
        specs.push_back({"Context Sync", EventKind::kGpuSync, kDevice, cpu, until - cpu, corr++});
        cpu = until + 10;
        break;
    }
    specs[marker].dur = cpu - step_start;
    cpu += 30;
  }
  return Make(specs);
}

Timeline FiveSteps() { return TrainingSteps(5); }

TEST(EventCriticalPaths, EveryStepOfATrainingLoopIsTheSameAsOneWindowAtATime) {
  const Timeline t = FiveSteps();
  std::vector<EventPathOptions> windows;
  // The steps forwards, then backwards (a nearer launch-queue horizon after
  // a further one), with and without zero-weight launch edges; the last step
  // is left out (HTA's multi-step filter), so 4 and 5 are errors.
  for (size_t i = 0; i <= 5; ++i) windows.push_back(Window("ProfilerStep", i));
  for (size_t i = 6; i-- > 0;) windows.push_back(Window("ProfilerStep", i, std::nullopt, true));
  for (int s = 5; s >= 1; --s) windows.push_back(Window("ProfilerStep#" + std::to_string(s), 0));
  windows.push_back(Window("", 0));
  windows.push_back(Window("", 0, std::nullopt, true));
  windows.push_back(Window("ProfilerStep", 0, 1));
  windows.push_back(Window("ProfilerStep", 2, 100));  // past the last: up to the last
  windows.push_back(Window("ProfilerStep", 1, 0));    // an empty range: an error
  windows.push_back(Window("forward", 0));            // in no name: an error
  // Annotations of several names (aten::op0, op1, op2; kernel0 to kernel3,
  // GPU rows), one after another and back.
  windows.push_back(Window("aten::op", 5));
  windows.push_back(Window("kernel", 2, 4));
  windows.push_back(Window("aten::op", 11, std::nullopt, true));
  windows.push_back(Window("aten::op", 3));
  // Names of GPU-side and CPU-side rows (kernel, cudaLaunchKernel, ...), which
  // the multi-step filter puts in that order.
  windows.push_back(Window("e", 7));
  windows.push_back(Window("e", 40, 45, true));
  windows.push_back(Window("ProfilerStep", 2));  // again, after the others
  const auto paths = ExpectSameAsOneByOne(t, windows);

  // The trace exercises what it was made for.
  size_t ok = 0;
  std::vector<std::string> kinds;
  for (const auto& p : paths) {
    if (!p) continue;
    ++ok;
    for (const EventEdge& e : p->edges) kinds.emplace_back(EventEdgeKindName(e.kind));
  }
  EXPECT_GE(ok, 15u);
  for (const char* kind :
       {"launch_delay", "kernel_kernel_delay", "sync_dependency", "dependency"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  }
  ASSERT_FALSE(paths[4].ok());
  EXPECT_THAT(paths[4].error().message, HasSubstr("'ProfilerStep' has 4 instances"));
}

TEST(EventCriticalPaths, TheHandMadeTimelinesOfEventCriticalPathAreTheSame) {
  const std::vector<std::vector<Spec>> timelines = {
      {
          {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100},
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
          {"ProfilerStep#2", EventKind::kMarker, kCpu, 100, 100},
          {"gemm", EventKind::kKernel, kStream7, 20, 10, 1},
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 110, 5, 2},
          {"gemm", EventKind::kKernel, kStream7, 120, 30, 2},
      },
      {
          {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 1000},
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
          {"cudaEventRecord", EventKind::kRuntime, kCpu, 16, 2, 2},
          {"cudaStreamWaitEvent", EventKind::kRuntime, kCpu, 20, 2, 3},
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 25, 5, 4},
          {"aten::relu", EventKind::kCpuOp, kCpu, 40, 5},
          {"gemm", EventKind::kKernel, kStream7, 20, 80, 1},
          {"Stream Wait Event", EventKind::kGpuSync, kStream8, 22, 1, 3, 7, 2},
          {"add", EventKind::kKernel, kStream8, 101, 10, 4},
      },
      {
          {"aten::linear", EventKind::kCpuOp, kCpu, 0, 100},
          {"aten::addmm", EventKind::kCpuOp, kCpu, 10, 50},
          {"record_param_comms", EventKind::kAnnotation, kCpu, 15, 30},
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 20, 10},
          {"aten::relu", EventKind::kCpuOp, kCpu, 120, 10},
      },
      {{"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100}},  // no path
  };
  for (const auto& specs : timelines) {
    const Timeline t = Make(specs);
    ExpectSameAsOneByOne(
        t, {Window("ProfilerStep", 0), Window("", 0), Window("ProfilerStep", 1, std::nullopt, true),
            Window("aten", 1), Window("", 0, std::nullopt, true), Window("ProfilerStep", 0)});
  }
}

TEST(EventCriticalPaths, AnEventRecordWaitedOnForTwoStreamsFailsEveryWindow) {
  // HTA's merge(..., validate="one_to_one") raises: so does every window, as
  // one window alone does.
  const Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 1000},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10, 5, 1},
      {"cudaEventRecord", EventKind::kRuntime, kCpu, 16, 2, 2},
      {"cudaStreamWaitEvent", EventKind::kRuntime, kCpu, 20, 2, 3},
      {"cudaEventSynchronize", EventKind::kRuntime, kCpu, 30, 80, 5},
      {"gemm", EventKind::kKernel, kStream7, 20, 80, 1},
      {"Stream Wait Event", EventKind::kGpuSync, kStream8, 22, 1, 3, 7, 2},
      {"Event Sync", EventKind::kGpuSync, kDevice, 30, 80, 5, 8, 2},
  });
  const auto paths =
      ExpectSameAsOneByOne(t, {Window("ProfilerStep", 0), Window("", 0), Window("nothing", 0)});
  ASSERT_EQ(paths.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_FALSE(paths[i].ok());
    EXPECT_THAT(paths[i].error().message, HasSubstr("waited on for two streams"));
  }
  ASSERT_FALSE(paths[2].ok());
  EXPECT_THAT(paths[2].error().message, HasSubstr("no event name contains"));
}

TEST(EventCriticalPaths, NoWindowsCallNothingAndAnEmptyTimelineFailsEach) {
  bool called = false;
  ForEachEventCriticalPath(FiveSteps(), {}, [&](size_t, Result<EventPath>) { called = true; });
  EXPECT_FALSE(called);
  const auto paths = ExpectSameAsOneByOne(Timeline{}, {Window("", 0), Window("ProfilerStep", 0)});
  ASSERT_EQ(paths.size(), 2u);
  for (const auto& p : paths) {
    ASSERT_FALSE(p.ok());
    EXPECT_THAT(p.error().message, HasSubstr("no events"));
  }
}

constexpr int kManySteps = 800;  // 17k events

// A trace of kParallelTraceItems events or more has its windows built on two
// cores (a second builder, reading the first's tables, takes every other
// window): the results are still each window's own, in order.
TEST(EventCriticalPaths, ALargeTracesWindowsOnTwoCoresAreTheSameAsOneWindowAtATime) {
  const Timeline t = TrainingSteps(kManySteps);
  ASSERT_GE(t.events.size(), kParallelTraceItems);
  std::vector<EventPathOptions> windows;
  for (size_t i = 0; i < 40; ++i) windows.push_back(Window("ProfilerStep", i));
  // Far ahead and back, and zero-weight launches.
  for (size_t i : std::initializer_list<size_t>{650, 30, 31, 798, 799, 5})
    windows.push_back(Window("ProfilerStep", i, std::nullopt, i % 2 == 0));
  windows.push_back(Window("ProfilerStep#12", 0));
  windows.push_back(Window("aten::op", 90, 96));
  windows.push_back(Window("kernel", 300));
  windows.push_back(Window("forward", 0));  // in no name: an error
  windows.push_back(Window("ProfilerStep", 2, 4));
  const auto paths = ExpectSameAsOneByOne(t, windows);
  size_t ok = 0;
  for (const auto& p : paths) ok += p.ok() ? 1 : 0;
  EXPECT_EQ(ok, windows.size() - 2);  // the last step (HTA leaves it out) and "forward"
  // Both threads made calls, in order (the turn) and never two at once.
  std::set<std::thread::id> callers;
  std::atomic<int> inside{0};
  size_t next = 0;
  ForEachEventCriticalPath(t, windows, [&](size_t i, Result<EventPath>) {
    EXPECT_EQ(inside.fetch_add(1), 0);
    EXPECT_EQ(i, next++);
    callers.insert(std::this_thread::get_id());
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // a slow caller
    inside.fetch_sub(1);
  });
  EXPECT_EQ(next, windows.size());
  if (HaveSecondCore()) {
    EXPECT_EQ(callers.size(), 2u);
  }
}

// The launch tables are built before the two builders start (Builder::Share):
// their failure still fails every window that reaches the kernels.
TEST(EventCriticalPaths, ALargeTracesEventRecordWaitedOnForTwoStreamsFailsOnBothCores) {
  const Timeline t = TrainingSteps(kManySteps, true);
  ASSERT_GE(t.events.size(), kParallelTraceItems);
  std::vector<EventPathOptions> windows;
  for (size_t i = 0; i < 9; ++i) windows.push_back(Window("ProfilerStep", i * 3));
  windows.push_back(Window("forward", 0));
  const auto paths = ExpectSameAsOneByOne(t, windows);
  for (size_t i = 0; i < 9; ++i) {
    ASSERT_FALSE(paths[i].ok()) << i;
    EXPECT_THAT(paths[i].error().message, HasSubstr("waited on for two streams"));
  }
  ASSERT_FALSE(paths[9].ok());
  EXPECT_THAT(paths[9].error().message, HasSubstr("no event name contains"));
}

// An exception from `each`, on either core's turn, stops the walk: no window
// after it is handed over, and the exception reaches the caller.
TEST(EventCriticalPaths, AnExceptionFromEachStopsTheWindowsOnTwoCores) {
  const Timeline t = TrainingSteps(kManySteps);
  ASSERT_GE(t.events.size(), kParallelTraceItems);
  std::vector<EventPathOptions> windows;
  for (size_t i = 0; i < 30; ++i) windows.push_back(Window("ProfilerStep", i));
  for (size_t throw_at : {size_t{0}, size_t{7}, size_t{12}, size_t{29}}) {
    std::vector<size_t> seen;
    std::string caught;
    try {
      ForEachEventCriticalPath(t, windows, [&](size_t i, Result<EventPath>) {
        seen.push_back(i);
        if (i == throw_at) throw std::runtime_error("window " + std::to_string(i));
      });
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    EXPECT_EQ(caught, "window " + std::to_string(throw_at));
    ASSERT_EQ(seen.size(), throw_at + 1);
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
  }
}

}  // namespace
}  // namespace cookgraph
