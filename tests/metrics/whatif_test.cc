#include "metrics/whatif.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "graph/parallel.h"
#include "tests/metrics/timeline_maker.h"

namespace cookgraph {
namespace {

using namespace testing_timeline;  // NOLINT: Spec, Make and the tracks

// A snapshot of `ids` with the given cook_ms series and measured frame_ms.
Snapshot Serial(const std::vector<std::pair<std::string, std::string>>& ids,
                const std::vector<std::vector<double>>& cooks, std::vector<double> frame_ms) {
  Snapshot s;
  s.info.engine = "touchdesigner";
  s.info.frame_budget_ms = 10;
  for (const auto& [id, family] : ids) {
    EXPECT_TRUE(s.network.AddNode(Node{.id = id, .type = family + "_op", .family = family}).ok());
  }
  s.samples = Samples(ids.size());
  std::vector<int64_t> index(frame_ms.size());
  for (size_t f = 0; f < index.size(); ++f) index[f] = static_cast<int64_t>(f);
  s.samples.SetFrameIndex(index);
  s.samples.SetFrameMs(std::move(frame_ms));
  for (NodeIndex n = 0; n < cooks.size(); ++n) s.samples.SetSeries(n, Metric::kCookMs, cooks[n]);
  return s;
}

TEST(WhatIf, SerialFramesLoseTheNodesCookTimeFrameByFrame) {
  const Snapshot s = Serial({{"/a", "TOP"}, {"/spiky", "CHOP"}, {"/q", "queue"}},
                            {{1, 1, 1, 1}, {0.5, 8, 0.5, 8}, {3, 3, 3, 3}}, {5, 12, 5, 12});
  const Analysis a = Analyse(s);
  const WhatIf w = WhatIf::Build(s, a);
  EXPECT_EQ(w.model(), WhatIfModel::kSerial);
  EXPECT_DOUBLE_EQ(w.before().mean_ms, 8.5);
  EXPECT_EQ(w.before().over_budget, 2u);

  const WhatIfChange remove{.node = 1, .factor = 0};
  const WhatIfPrediction p = w.Predict(std::span(&remove, 1));
  EXPECT_THAT(p.frame_ms, ::testing::ElementsAre(4.5, 4, 4.5, 4));
  EXPECT_DOUBLE_EQ(p.saved_ms, 4.25);
  EXPECT_EQ(p.frames_saved, 2);

  // Halving: 4 ms off the spiky frames leaves them at 8, under 10.
  const WhatIfChange halve{.node = 1, .factor = 0.5};
  EXPECT_EQ(w.Predict(std::span(&halve, 1)).frames_saved, 2);
  // A node named twice takes the last factor.
  const std::vector<WhatIfChange> twice = {{.node = 0, .factor = 0}, {.node = 0, .factor = 0.5}};
  EXPECT_DOUBLE_EQ(w.Predict(twice).saved_ms, 0.5);
  // A queue waits: removing it gains nothing.
  const WhatIfChange queue{.node = 2, .factor = 0};
  EXPECT_DOUBLE_EQ(w.Predict(std::span(&queue, 1)).saved_ms, 0);
  // Slower: frames are lost, not saved (7 ms more puts 5 ms frames at 12).
  const WhatIfChange slower{.node = 0, .factor = 8};
  EXPECT_EQ(w.Predict(std::span(&slower, 1)).frames_saved, -2);

  const std::vector<NodeGain> gains = w.Gains(0);
  ASSERT_EQ(gains.size(), 2u);  // the queue is left out
  EXPECT_EQ(gains[0].node, 1u);
  EXPECT_EQ(gains[1].node, 0u);
  EXPECT_DOUBLE_EQ(gains[1].saved_ms, 1);
  EXPECT_THAT(HalvingGains(w, a, 3), ::testing::ElementsAre(0.5, 2.125, 0));
}

TEST(WhatIf, TheSlowestStreamingThreadSetsTheBufferTime) {
  Snapshot s = Serial({{"/p/x", "element"}, {"/p/y", "element"}, {"/p/q", "queue"}},
                      {{4, 4, 4}, {6, 7, 6}, {50, 50, 50}}, {6, 7, 6});
  s.info.engine = "gstreamer";
  s.info.frame_budget_ms = 33.333;
  Streaming streaming;
  streaming.threads.push_back(StreamingThread{
      .thread = "0x1", .elements = {0}, .work = {true}, .element_ms = {12}, .element_cooks = {{4, 4, 4}}});
  streaming.threads.push_back(StreamingThread{.thread = "0x2",
                                              .elements = {2, 1},
                                              .work = {false, true},
                                              .element_ms = {150, 19},
                                              .element_cooks = {{50, 50, 50}, {6, 7, 6}}});
  s.streaming = streaming;
  s.samples.SetUnmeasuredFramesIdle(true);
  const Analysis a = Analyse(s);
  const WhatIf w = WhatIf::Build(s, a);
  EXPECT_EQ(w.model(), WhatIfModel::kStreaming);
  // Removing y: thread 0x1 (4 ms) becomes the slowest, so 2, 3, 2 ms are saved, not 6, 7, 6.
  const WhatIfChange y{.node = 1, .factor = 0};
  EXPECT_THAT(w.Predict(std::span(&y, 1)).frame_ms, ::testing::ElementsAre(4, 4, 4));
  // Halving x, off the slowest thread, gains nothing.
  const WhatIfChange x{.node = 0, .factor = 0.5};
  EXPECT_DOUBLE_EQ(w.Predict(std::span(&x, 1)).saved_ms, 0);
  // Both: the slower of 2 and 3, 3.5, 3.
  const std::vector<WhatIfChange> both = {{.node = 0, .factor = 0.5}, {.node = 1, .factor = 0.5}};
  EXPECT_THAT(w.Predict(both).frame_ms, ::testing::ElementsAre(3, 3.5, 3));
  for (const std::vector<WhatIfChange>& changes : {std::vector<WhatIfChange>{y}, {x}, both}) {
    EXPECT_EQ(w.Savings(changes).saved_ms, w.Predict(changes).saved_ms);
    EXPECT_EQ(w.Savings(changes).frames_saved, w.Predict(changes).frames_saved);
  }
}

// `nodes` nodes over `frames` frames, each cook a multiple of 0.25 ms from
// 0 to 2 (ties everywhere), one in nine missing; frame_ms is their sum plus
// 1 ms, one frame in 40 unmeasured. Seeded: the same snapshot every run.
Snapshot RandomSerial(size_t nodes, size_t frames, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::string, std::string>> ids;
  std::vector<std::vector<double>> cooks(nodes, std::vector<double>(frames));
  std::vector<double> frame_ms(frames, 1.0);
  for (size_t n = 0; n < nodes; ++n) {
    ids.emplace_back("/p/n" + std::to_string(n), "TOP");
    for (size_t f = 0; f < frames; ++f) {
      const unsigned r = rng() % 9;
      cooks[n][f] = r == 8 ? NAN : 0.25 * r;
      if (r != 8) frame_ms[f] += cooks[n][f];
    }
  }
  for (size_t f = 0; f < frames; f += 40) frame_ms[f] = NAN;
  Snapshot s = Serial(ids, cooks, std::move(frame_ms));
  s.samples.SetUnmeasuredFramesIdle(true);
  return s;
}

// The statistics of a prediction's frames as FramesOf defines them, read
// from its frame times: the mean summed in frame order, the p95 of the
// sorted values (NumPy's "linear"), the frames over the budget.
struct Reference {
  double mean = 0, p95 = 0;
  size_t over = 0;
};
Reference ReferenceOf(const std::vector<double>& frame_ms, double budget_ms) {
  std::vector<double> v;
  Reference r;
  for (double x : frame_ms) {
    if (std::isnan(x)) continue;
    v.push_back(x);
    r.mean += x;
    r.over += x > budget_ms;
  }
  r.mean /= static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  const double h = static_cast<double>(v.size() - 1) * 95 / 100.0;
  const auto lo = static_cast<size_t>(std::floor(h));
  r.p95 = v[lo] + (h - std::floor(h)) * (v[lo + 1] - v[lo]);
  return r;
}

TEST(WhatIf, EachPredictionsStatisticsAreThoseOfItsFrameTimes) {
  // The p95 is selected among the frames near the one before (a window from
  // how far the change moves a frame); every change here, one node at four
  // factors and sets of several, must give the sorted frames' numbers
  // exactly, with ties at every value and frames left out.
  for (unsigned seed = 1; seed <= 3; ++seed) {
    Snapshot s = RandomSerial(40, 301, seed);
    s.info.frame_budget_ms = 40;
    const Analysis a = Analyse(s);
    const WhatIf w = WhatIf::Build(s, a);
    ASSERT_TRUE(w.has_budget());
    ASSERT_GT(w.before().over_budget, 0u);
    ASSERT_LT(w.before().over_budget, 290u);
    std::vector<std::vector<WhatIfChange>> sets;
    for (NodeIndex n = 0; n < 40; ++n) {
      for (double factor : {0.0, 0.5, 2.0, 8.0}) sets.push_back({{.node = n, .factor = factor}});
    }
    for (NodeIndex n = 0; n + 3 < 40; n += 3) {
      sets.push_back(
          {{.node = n, .factor = 0}, {.node = n + 1, .factor = 0.5}, {.node = n + 3, .factor = 3}});
    }
    for (const std::vector<WhatIfChange>& changes : sets) {
      const WhatIfPrediction p = w.Predict(changes);
      const Reference r = ReferenceOf(p.frame_ms, w.budget_ms());
      const std::string what =
          "seed " + std::to_string(seed) + ", node " + std::to_string(changes[0].node) + " at " +
          std::to_string(changes[0].factor) + ", " + std::to_string(changes.size()) + " change(s)";
      EXPECT_EQ(p.after.mean_ms, r.mean) << what;
      EXPECT_EQ(p.after.p95_ms, r.p95) << what;
      EXPECT_EQ(p.after.over_budget, r.over) << what;
      // Savings: the same two numbers without the p95.
      const WhatIfSavings saved = w.Savings(changes);
      EXPECT_EQ(saved.saved_ms, p.saved_ms) << what;
      EXPECT_EQ(saved.frames_saved, p.frames_saved) << what;
    }
  }
}

TEST(WhatIf, GainOrderAndHalvingGainsAreGainsWithoutEveryP95) {
  // 5,000 nodes over 8 frames, cooks in quarter milliseconds: many nodes
  // save the same mean and the same frames, so the order falls to the p95
  // (and then to the node). Large enough for the two halves.
  Snapshot s = RandomSerial(5000, 8, 7);
  s.info.frame_budget_ms = 2505;
  const Analysis a = Analyse(s);
  const WhatIf w = WhatIf::Build(s, a);
  ASSERT_GT(w.before().over_budget, 0u);
  for (double factor : {0.0, 0.5}) {
    const std::vector<NodeGain> gains = w.Gains(factor);
    const auto order = w.GainOrder(factor);
    ASSERT_EQ(order.size(), gains.size());
    size_t p95_decides = 0;
    for (size_t i = 0; i < gains.size(); ++i) {
      ASSERT_EQ(order[i].first, gains[i].node) << "factor " << factor << ", place " << i;
      EXPECT_EQ(order[i].second.saved_ms, gains[i].saved_ms);
      EXPECT_EQ(order[i].second.frames_saved, gains[i].frames_saved);
      if (i > 0 && gains[i].saved_ms == gains[i - 1].saved_ms &&
          gains[i].frames_saved == gains[i - 1].frames_saved &&
          gains[i].saved_p95_ms != gains[i - 1].saved_p95_ms) {
        ++p95_decides;
      }
    }
    EXPECT_GT(p95_decides, 10u) << "the p95 must decide some places for this test to mean anything";
  }
  const std::vector<double> halving = HalvingGains(w, a, s.network.size());
  ASSERT_EQ(halving.size(), 5000u);
  size_t predicted = 0;
  for (const NodeGain& g : w.Gains(0.5)) {
    EXPECT_EQ(halving[g.node], g.saved_ms) << g.node;
    ++predicted;
  }
  EXPECT_GT(predicted, 4000u);
}

constexpr int64_t kMs = 1'000'000;  // ns

// One step of 100 ms: "op" (0-40) launches "gemm" (20-70, stream 7) at 10 and
// "side" (30-40, stream 8) at 20. The path runs op -> launch -> gemm: 10 of
// op's own time, the launch delay of 10, gemm's 50.
Snapshot Trace() {
  Timeline t = Make({
      {"ProfilerStep#1", EventKind::kMarker, kCpu, 0, 100 * kMs},
      {"op", EventKind::kCpuOp, kCpu, 0, 40 * kMs},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 10 * kMs, 5 * kMs, 1},
      {"cudaLaunchKernel", EventKind::kRuntime, kCpu, 20 * kMs, 5 * kMs, 2},
      {"gemm", EventKind::kKernel, kStream7, 20 * kMs, 50 * kMs, 1},
      {"side", EventKind::kKernel, kStream8, 30 * kMs, 10 * kMs, 2},
  });
  for (uint32_t e = 0; e < t.events.size(); ++e) {
    if (t.events[e].source == 0) {
      t.markers = {e};
      t.events[e].node = kNoIndex;
    }
    t.events[e].frame = 0;
  }
  t.steps = {1};
  Snapshot s;
  s.info.engine = "pytorch";
  for (const std::string& name : t.names) {
    EXPECT_TRUE(s.network.AddNode(Node{.id = name, .type = name, .family = "cpu_op"}).ok());
  }
  s.samples = Samples(t.names.size());
  s.samples.SetFrameIndex({1});
  s.samples.SetFrameMs({100});
  for (NodeIndex n = 0; n < t.names.size(); ++n) s.samples.SetSeries(n, Metric::kCookMs, {1});
  s.timelines.push_back(std::move(t));
  return s;
}

double Saved(const Snapshot& s, const WhatIf& w, const std::string& id, double factor) {
  const WhatIfChange c{.node = *s.network.Find(id), .factor = factor};
  return w.Predict(std::span(&c, 1)).saved_ms;
}

TEST(WhatIf, AStepLosesWhatItsCriticalPathLoses) {
  const Snapshot s = Trace();
  const Analysis a = Analyse(s);
  const WhatIf w = WhatIf::Build(s, a);
  ASSERT_EQ(w.model(), WhatIfModel::kStepPath);
  EXPECT_TRUE(w.warnings().empty()) << w.warnings().front();
  EXPECT_DOUBLE_EQ(w.before().mean_ms, 100);
  // Without gemm the longest path is op's 40 ms: 30 saved of the 70.
  EXPECT_DOUBLE_EQ(Saved(s, w, "gemm", 0), 30);
  EXPECT_DOUBLE_EQ(Saved(s, w, "gemm", 0.5), 25);
  // op's own time on the path is 10 ms (before the launch): halving it saves 5.
  EXPECT_DOUBLE_EQ(Saved(s, w, "op", 0.5), 5);
  // The kernel beside it is off the path: nothing.
  EXPECT_DOUBLE_EQ(Saved(s, w, "side", 0), 0);
  for (const NodeGain& g : w.Gains(0)) {
    if (s.network.node(g.node).id == "side") {
      EXPECT_EQ(g.saved_ms, 0);
    }
  }
  // Slower gemm makes the step longer.
  EXPECT_DOUBLE_EQ(Saved(s, w, "gemm", 2), -50);
}

// `steps` steps of 150 operators each on the CPU thread, every one launching
// a kernel on stream 7 or 8: 20 operator and 20 kernel names, random
// durations. Enough graph for the predictions of every node to run on two
// cores (WhatIf::PredictsOnTwoCores).
Snapshot ManySteps(int steps, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Spec> specs;
  std::vector<double> step_ms;
  int64_t at = 0;
  uint32_t correlation = 1;
  for (int k = 0; k < steps; ++k) {
    const int64_t step_start = at;
    const size_t marker = specs.size();
    specs.push_back({"ProfilerStep#" + std::to_string(k + 1), EventKind::kMarker, kCpu, at, 0});
    int64_t gpu_free = at;
    for (int i = 0; i < 150; ++i) {
      const int op = static_cast<int>(rng() % 20);
      const int64_t dur = (20 + static_cast<int64_t>(rng() % 200)) * 1000;
      const int64_t launch_at = at + dur / 4;
      const int64_t kernel = (10 + static_cast<int64_t>(rng() % 400)) * 1000;
      specs.push_back({"op" + std::to_string(op), EventKind::kCpuOp, kCpu, at, dur});
      specs.push_back(
          {"cudaLaunchKernel", EventKind::kRuntime, kCpu, launch_at, dur / 4, correlation});
      const int64_t kernel_start = std::max(gpu_free, launch_at + dur / 4 + 2000);
      specs.push_back({"kernel" + std::to_string(op), EventKind::kKernel,
                       rng() % 2 ? kStream7 : kStream8, kernel_start, kernel, correlation});
      gpu_free = kernel_start + kernel;
      ++correlation;
      at += dur + 1000;
    }
    at = std::max(at, gpu_free) + 1000;
    specs[marker].dur = at - step_start;
    step_ms.push_back(static_cast<double>(at - step_start) / 1e6);
    at += 1000;
  }
  Timeline t = Make(specs);
  t.markers.assign(static_cast<size_t>(steps), kNoIndex);
  for (uint32_t e = 0; e < t.events.size(); ++e) {
    const std::string& name = t.names[t.events[e].name];
    if (name.rfind("ProfilerStep#", 0) == 0) {
      t.markers[static_cast<size_t>(std::stoi(name.substr(13)) - 1)] = e;
      t.events[e].node = kNoIndex;
    }
  }
  std::vector<int64_t> index;
  for (int k = 0; k < steps; ++k) {
    const TimelineEvent& m = t.events[t.markers[static_cast<size_t>(k)]];
    for (TimelineEvent& e : t.events) {
      if (e.start_ns >= m.start_ns && e.start_ns < m.start_ns + m.dur_ns)
        e.frame = static_cast<uint32_t>(k);
    }
    index.push_back(k + 1);
  }
  t.steps = index;
  Snapshot s;
  s.info.engine = "pytorch";
  for (const std::string& name : t.names) {
    EXPECT_TRUE(s.network.AddNode(Node{.id = name, .type = name, .family = "cpu_op"}).ok());
  }
  s.samples = Samples(t.names.size());
  s.samples.SetFrameIndex(index);
  s.samples.SetFrameMs(step_ms);
  for (NodeIndex n = 0; n < t.names.size(); ++n) {
    s.samples.SetSeries(n, Metric::kCookMs, std::vector<double>(static_cast<size_t>(steps), 1.0));
  }
  s.timelines.push_back(std::move(t));
  return s;
}

TEST(WhatIf, ManyStepsPredictEveryNodeOnTwoCoresAsOneByOne) {
  // Every node's prediction on two cores (Gains, GainOrder, HalvingGains)
  // gives what predicting each node alone gives.
  // 40 steps: past kParallelTraceItems events, so that the steps' graphs are
  // built on two cores too (metrics/event_critical_path.h).
  const Snapshot s = ManySteps(40, 11);
  ASSERT_GE(s.timelines.front().events.size(), kParallelTraceItems);
  const Analysis a = Analyse(s);
  const WhatIf w = WhatIf::Build(s, a);
  ASSERT_EQ(w.model(), WhatIfModel::kStepPath);
  // 39 steps modelled: HTA leaves out the last.
  ASSERT_FALSE(w.warnings().empty());
  EXPECT_THAT(w.warnings().front(), ::testing::HasSubstr("leaves out a trace's last step"));
  EXPECT_EQ(std::count_if(w.frame_ms().begin(), w.frame_ms().end(),
                          [](double v) { return !std::isnan(v); }),
            39);
  size_t working = 0;
  for (NodeIndex n = 0; n < s.network.size(); ++n) {
    working += !a.waiting[n] && a.stats[n].cooked_frames > 0;
  }
  ASSERT_GT(working, 30u);
  EXPECT_TRUE(w.PredictsOnTwoCores(working));
  EXPECT_FALSE(w.PredictsOnTwoCores(1));
  const std::vector<double> halving = HalvingGains(w, a, s.network.size());
  size_t saving = 0;
  for (double factor : {0.0, 0.5}) {
    const std::vector<NodeGain> gains = w.Gains(factor);
    const auto order = w.GainOrder(factor);
    ASSERT_EQ(gains.size(), working);
    ASSERT_EQ(order.size(), working);
    for (size_t i = 0; i < gains.size(); ++i) {
      const WhatIfChange c{.node = gains[i].node, .factor = factor};
      const WhatIfPrediction alone = w.Predict(std::span(&c, 1));
      EXPECT_EQ(gains[i].saved_ms, alone.saved_ms) << gains[i].node;
      EXPECT_EQ(gains[i].saved_p95_ms, alone.saved_p95_ms) << gains[i].node;
      EXPECT_EQ(gains[i].frames_saved, alone.frames_saved) << gains[i].node;
      EXPECT_EQ(order[i].first, gains[i].node) << i;
      if (factor == 0.5) {
        EXPECT_EQ(halving[gains[i].node], alone.saved_ms) << gains[i].node;
      }
      saving += alone.saved_ms > 0;
    }
  }
  EXPECT_GT(saving, 10u) << "some nodes must be on the steps' paths for this test to mean anything";
}

TEST(EventCriticalPath, OperatorEdgesNameTheEventWhoseOwnTimeTheyAre) {
  const Snapshot s = Trace();
  const Timeline& t = s.timelines.front();
  auto p = EventCriticalPath(t, EventPathOptions{});
  ASSERT_TRUE(p.ok()) << p.error().Format();
  for (const EventEdge& e : p->edges) {
    if (e.kind != EventEdgeKind::kOperator) {
      EXPECT_EQ(e.owner, kNoIndex);
      continue;
    }
    ASSERT_NE(e.owner, kNoIndex);
    // The stretch to an end is that event's; to a nested start, the parent's.
    if (e.to_end) EXPECT_EQ(e.owner, e.to);
    else EXPECT_EQ(t.names[t.events[e.owner].name], "op");
  }
}

}  // namespace
}  // namespace cookgraph
