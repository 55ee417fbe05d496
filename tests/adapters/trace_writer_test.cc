// `cookgraph trace`'s output: well-formed Trace Event JSON, and read back by
// cookgraph's own Chrome reader it gives the same cooked nodes and per-frame
// cook times and cook counts as the snapshot it was written from.

#include "adapters/trace_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/chrome_trace.h"
#include "adapters/snapshot_reader.h"

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

}  // namespace
}  // namespace cookgraph
