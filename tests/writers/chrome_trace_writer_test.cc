// `cookgraph trace`'s output: well-formed Trace Event JSON, and read back by
// cookgraph's own Chrome reader it gives the same cooked nodes and per-frame
// cook times and cook counts as the snapshot it was written from.

#include "writers/chrome_trace_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/native/snapshot_reader.h"

namespace cookgraph {
namespace {

const char* kExamples[] = {"touchdesigner_feedback", "gstreamer_pipeline", "pytorch_model"};

Snapshot Example(const std::string& name) {
  Result<Snapshot> s =
      ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(s) << s.error().Format();
  return s ? std::move(*s) : Snapshot{};
}

TEST(TraceWriter, IsWellFormedTraceEventJsonInMicroseconds) {
  const Snapshot snapshot = Example("touchdesigner_feedback");
  const Analysis analysis = Analyse(snapshot);
  const std::string text = RenderTrace(snapshot, analysis);
  const nlohmann::json trace = nlohmann::json::parse(text);  // throws when not balanced
  ASSERT_TRUE(trace["traceEvents"].is_array());
  size_t frames = 0, slices = 0, flows = 0, names = 0;
  double last_frame_end = 0;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      names += e["name"] == "thread_name";
      continue;
    }
    ASSERT_TRUE(e["ts"].is_number()) << e.dump();
    if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number());
      EXPECT_GE(e["dur"].get<double>(), 0);
      if (e["tid"] == 0) {
        ++frames;
        // Frames follow one another; µs, so a 300-frame run at ~14 ms spans ~4e6.
        EXPECT_GE(e["ts"].get<double>(), last_frame_end - 1e-9);
        last_frame_end = e["ts"].get<double>() + e["dur"].get<double>();
      } else {
        ++slices;
      }
    } else {
      EXPECT_TRUE(ph == "s" || ph == "f") << ph;
      ++flows;
    }
  }
  EXPECT_EQ(frames, snapshot.samples.frame_count());
  EXPECT_EQ(names, snapshot.network.size() + 1);  // a track per node, and the frames
  EXPECT_GT(slices, snapshot.samples.frame_count() * 100);
  // 16 critical nodes, all cooking every frame: 15 flows of two events a frame.
  EXPECT_EQ(flows, 2 * 15 * snapshot.samples.frame_count());
  EXPECT_NEAR(last_frame_end / 1000, 300 * 13.604, 300 * 0.01);
}

TEST(TraceWriter, ReadingItBackGivesTheSameNodesAndPerFrameCookTimes) {
  for (const char* name : kExamples) {
    const Snapshot original = Example(name);
    const Analysis analysis = Analyse(original);
    Result<Snapshot> back = ParseChromeTrace(RenderTrace(original, analysis), {}, "trace.json");
    ASSERT_TRUE(back) << name << ": " << back.error().Format();
    ASSERT_EQ(back->samples.frame_index(), original.samples.frame_index()) << name;
    size_t cooked = 0, compared = 0;
    for (NodeIndex n = 0; n < original.network.size(); ++n) {
      const std::span<const double> cook = original.samples.series(n, Metric::kCookMs);
      bool any = false;
      for (double v : cook) any = any || !IsMissing(v);
      const std::string& id = original.network.node(n).id;
      const std::optional<NodeIndex> m = back->network.Find(id);
      if (!any) {
        EXPECT_FALSE(m) << name << ": " << id << " never cooked but is in the trace";
        continue;
      }
      ++cooked;
      ASSERT_TRUE(m) << name << ": " << id << " is missing";
      const std::span<const double> again = back->samples.series(*m, Metric::kCookMs);
      const std::span<const double> cooks = original.samples.series(n, Metric::kCooks);
      const std::span<const double> cooks_again = back->samples.series(*m, Metric::kCooks);
      for (size_t f = 0; f < cook.size(); ++f) {
        ASSERT_EQ(IsMissing(cook[f]), IsMissing(again[f])) << name << " " << id << " frame " << f;
        if (IsMissing(cook[f])) continue;
        EXPECT_NEAR(again[f], cook[f], 2e-6) << name << " " << id << " frame " << f;
        const double expected_cooks = cooks.empty() || IsMissing(cooks[f])
                                          ? 1
                                          : std::max(1.0, std::round(cooks[f]));
        EXPECT_EQ(cooks_again[f], expected_cooks) << name << " " << id << " frame " << f;
        ++compared;
      }
    }
    EXPECT_EQ(back->network.size(), cooked) << name;
    EXPECT_GT(compared, 1000u) << name;
  }
}

// Chrome traces keep their recorded timing: frames start where their markers
// did, each node's first cook where its first slice did (inside its frame),
// and the cook times read back unchanged, also for a node whose cooks add up
// to more than its frame (a collective on two threads).
TEST(TraceWriter, ChromeTracesKeepTheirRecordedTiming) {
  std::vector<std::string> inputs = {
      std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/chrome/synthetic_kineto.json",
      std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/chrome/onnxruntime_profile.json"};
  const std::string fixtures = std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/fixtures/traces/";
  for (const char* f : {"kineto_cpu_only.json.gz", "kineto_cuda_event_sync.json.gz",
                        "kineto_2021_schema.json", "tf1_timeline_cpu_step.json"}) {
    inputs.push_back(fixtures + f);
  }
  for (const std::string& path : inputs) {
    Result<Snapshot> original = ReadChromeTraceFile(path, {});
    ASSERT_TRUE(original) << original.error().Format();
    ASSERT_TRUE(original->timing) << path;
    const Analysis analysis = Analyse(*original);
    const std::string text = RenderTrace(*original, analysis);
    const nlohmann::json trace = nlohmann::json::parse(text);
    // The first cook of each node in each frame: its ts (ms from the first frame).
    std::map<std::pair<std::string, size_t>, double> first;
    std::vector<double> frame_starts;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "X" && e["tid"] == 0) frame_starts.push_back(e["ts"].get<double>() / 1000);
    }
    ASSERT_EQ(frame_starts.size(), original->samples.frame_count()) << path;
    for (size_t f = 0; f < frame_starts.size(); ++f) {
      EXPECT_NEAR(frame_starts[f], original->timing->frame_start_ms[f], 1e-6) << path;
    }
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] != "X" || e["tid"] == 0) continue;
      const double ts = e["ts"].get<double>() / 1000;
      const size_t f = std::upper_bound(frame_starts.begin(), frame_starts.end(), ts + 1e-9) -
                       frame_starts.begin() - 1;
      auto key = std::make_pair(e["name"].get<std::string>(), f);
      if (!first.count(key) || ts < first[key]) first[key] = ts;
    }
    size_t kept = 0;
    for (NodeIndex n = 0; n < original->network.size(); ++n) {
      const auto& starts = original->timing->first_start_ms[n];
      for (size_t f = 0; f < starts.size(); ++f) {
        if (IsMissing(starts[f])) continue;
        const double frame_end = original->timing->frame_start_ms[f] +
                                 original->samples.frame_ms()[f];
        const auto key = std::make_pair(original->network.node(n).id, f);
        ASSERT_TRUE(first.count(key)) << path << " " << key.first;
        if (starts[f] >= original->timing->frame_start_ms[f] && starts[f] < frame_end) {
          EXPECT_NEAR(first[key], starts[f], 1e-6) << path << " " << key.first;
          ++kept;
        }
      }
    }
    EXPECT_GT(kept, 0u) << path;
    Result<Snapshot> back = ParseChromeTrace(text, {}, "trace.json");
    ASSERT_TRUE(back) << back.error().Format();
    ASSERT_EQ(back->samples.frame_index(), original->samples.frame_index()) << path;
    for (NodeIndex n = 0; n < original->network.size(); ++n) {
      const std::optional<NodeIndex> m = back->network.Find(original->network.node(n).id);
      ASSERT_TRUE(m) << path << " " << original->network.node(n).id;
      const auto a = original->samples.series(n, Metric::kCookMs);
      const auto b = back->samples.series(*m, Metric::kCookMs);
      for (size_t f = 0; f < a.size(); ++f) {
        ASSERT_EQ(IsMissing(a[f]), IsMissing(b[f])) << path << " " << original->network.node(n).id;
        if (!IsMissing(a[f])) {
          EXPECT_NEAR(a[f], b[f], 2e-6) << path << " " << original->network.node(n).id;
        }
      }
    }
  }
}

}  // namespace
}  // namespace cookgraph
